package io.github.kvroute.api;

import java.util.Locale;
import java.util.OptionalDouble;

/**
 * One replica in a {@link DecisionExplanation}: what the router saw of it for one request. An
 * eligible replica carries the router's standard estimate for the request there, term by term (the
 * estimate policies read through {@link RoutingContext#estimate}); a vetoed one the estimate with the
 * vetoing term shown as the largest finite cost; an ineligible one only the reason.
 *
 * <p>Immutable and thread-safe.
 *
 * @param replicaId the replica
 * @param epoch its epoch as the router knew it (-1 when it has never reported)
 * @param verdict what the router made of it
 * @param reason why it was vetoed or ineligible; empty for candidates
 * @param estimate predicted time to first token by term; empty for ineligible replicas
 * @param matchedTokens leading prompt tokens the router believes the replica holds; 0 for
 *     ineligible replicas
 * @param score the policy's ranking score ({@link RoutingDecision#score()}): known for the chosen
 *     replica when the policy gave one, empty otherwise (a policy ranks by its own rule, which the
 *     router does not see)
 */
public record CandidateExplanation(String replicaId, long epoch, Verdict verdict, String reason,
    CostBreakdown estimate, int matchedTokens, OptionalDouble score) {

  /** What the router made of a replica for one request. */
  public enum Verdict {
    /** The decision routes the request (or its prefill) here. */
    CHOSEN,
    /** Eligible and offered to the policy, not chosen (or the request was rejected). */
    CANDIDATE,
    /** Eligible, but a cost term returned {@code +Infinity}: no policy saw it. */
    VETOED,
    /**
     * Not a candidate: not ready, another model, version or adapter, its breaker denied it, or it
     * holds the request's earlier attempt still in flight (a hedge goes elsewhere).
     */
    INELIGIBLE
  }

  /**
   * @param replicaId the replica
   * @param epoch its epoch as the router knew it (-1 when it has never reported)
   * @param verdict what the router made of it
   * @param reason why it was vetoed or ineligible; empty for candidates
   * @param estimate predicted time to first token by term; empty for ineligible replicas
   * @param matchedTokens leading prompt tokens the router believes the replica holds; 0 for
   *     ineligible replicas
   * @param score the policy's ranking score ({@link RoutingDecision#score()}): known for the chosen
   *     replica when the policy gave one, empty otherwise (a policy ranks by its own rule, which
   *     the router does not see)
   * @throws IllegalArgumentException if a candidate has a reason, an excluded replica none, or an
   *     ineligible one an estimate
   */
  public CandidateExplanation {
    Checks.notBlank(replicaId, "replicaId");
    Checks.notNull(verdict, "verdict");
    Checks.notNull(reason, "reason");
    Checks.notNull(estimate, "estimate");
    Checks.notNull(score, "score");
    Checks.atLeast(matchedTokens, 0, "matchedTokens");
    boolean excluded = verdict == Verdict.VETOED || verdict == Verdict.INELIGIBLE;
    Checks.argument(excluded != reason.isEmpty(), "reason", reason,
        excluded ? "a reason for " + verdict : "empty for " + verdict);
    Checks.argument(verdict != Verdict.INELIGIBLE || estimate.isEmpty(), "estimate", estimate,
        "empty for INELIGIBLE");
  }

  /**
   * {@return the predicted time to first token here in milliseconds: the estimate's total for
   * candidates, {@code +Infinity} for a vetoed replica, NaN for an ineligible one}
   */
  public double predictedTtftMillis() {
    return switch (verdict) {
      case CHOSEN, CANDIDATE -> estimate.totalMillis();
      case VETOED -> Double.POSITIVE_INFINITY;
      case INELIGIBLE -> Double.NaN;
    };
  }

  /** For example {@code R2#0 CHOSEN 220.0 ms = queue 100.0 + prefill 120.0, matched 2000, score 220.0}. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(replicaId).append('#').append(epoch).append(' ')
        .append(verdict);
    if (verdict != Verdict.INELIGIBLE) {
      s.append(' ').append(estimate).append(", matched ").append(matchedTokens);
    }
    if (score.isPresent()) {
      s.append(String.format(Locale.ROOT, ", score %.1f", score.getAsDouble()));
    }
    if (!reason.isEmpty()) {
      s.append(": ").append(reason);
    }
    return s.toString();
  }
}
