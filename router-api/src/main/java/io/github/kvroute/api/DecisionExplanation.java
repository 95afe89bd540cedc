package io.github.kvroute.api;

import java.util.List;
import java.util.Optional;

/**
 * Why a router decided as it did for one request: the decision, and every replica the router knew
 * with what it saw of it (see {@link CandidateExplanation}), sorted by replica id. Built only when a
 * host asks for it; the ordinary {@code route} builds none.
 *
 * <pre>{@code
 * DecisionExplanation e = router.explain(request);
 * e.candidates().forEach(c -> log.info("{}", c));   // R2#0 CHOSEN 220.0 ms = queue 100.0 + ...
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class DecisionExplanation {
  private final RoutingDecision decision;
  private final List<CandidateExplanation> candidates;

  private DecisionExplanation(RoutingDecision decision, List<CandidateExplanation> candidates) {
    this.decision = decision;
    this.candidates = candidates;
  }

  /**
   * @param decision the decision explained
   * @param candidates one entry per replica the router knew; copied
   * @return the explanation
   * @throws IllegalArgumentException if a replica appears twice
   */
  public static DecisionExplanation of(RoutingDecision decision,
      List<CandidateExplanation> candidates) {
    Checks.notNull(decision, "decision");
    List<CandidateExplanation> copy = List.copyOf(Checks.notNull(candidates, "candidates"));
    Checks.argument(copy.stream().map(CandidateExplanation::replicaId).distinct().count()
        == copy.size(), "candidates", copy.size(), "each replica once");
    return new DecisionExplanation(decision, copy);
  }

  /** {@return the decision explained} */
  public RoutingDecision decision() {
    return decision;
  }

  /** {@return every replica the router knew, by replica id} */
  public List<CandidateExplanation> candidates() {
    return candidates;
  }

  /**
   * The replica's entry, if the router knew it.
   *
   * @param replicaId the replica's id
   * @return its entry; empty when the router did not know it
   */
  public Optional<CandidateExplanation> candidate(String replicaId) {
    for (CandidateExplanation c : candidates) {
      if (c.replicaId().equals(replicaId)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /** The decision, then one line per replica. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(decision.toString());
    for (CandidateExplanation c : candidates) {
      s.append(System.lineSeparator()).append("  ").append(c);
    }
    return s.toString();
  }
}
