package io.github.kvroute.api;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The router's answer for one request: <em>routed</em> to a replica (with the predicted time to first
 * token and its breakdown, optionally the policy's own ranking score, and how many prompt tokens the
 * router believes are already cached there), optionally with a separate prefill replica for
 * prefill/decode disaggregation; or <em>rejected</em> with a reason and, when waiting would help, a
 * {@link #retryAfter()}.
 *
 * <p>The prediction and the score are different things: {@link #cost()} is milliseconds of TTFT, what
 * admission compares with a deadline and outcomes calibrate against; {@link #score()} is whatever the
 * policy minimised (weighted terms, externalities) and only explains the choice.
 *
 * <pre>{@code
 * RoutingDecision d = router.route(request);
 * if (d.isRouted()) forward(d.replicaId()); else reply429(d.retryAfter());
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class RoutingDecision {
  private final String replicaId;
  private final long epoch;
  private final String prefillReplicaId;
  private final long prefillEpoch;
  private final CostBreakdown cost;
  /** The policy's ranking score; NaN when it gave none. */
  private final double score;
  private final int matchedTokens;
  private final RejectReason reason;
  private final String detail;
  private final Duration retryAfter;

  private RoutingDecision(String replicaId, long epoch, String prefillReplicaId, long prefillEpoch,
      CostBreakdown cost, double score, int matchedTokens, RejectReason reason, String detail,
      Duration retryAfter) {
    this.replicaId = replicaId;
    this.epoch = epoch;
    this.prefillReplicaId = prefillReplicaId;
    this.prefillEpoch = prefillEpoch;
    this.cost = cost;
    this.score = score;
    this.matchedTokens = matchedTokens;
    this.reason = reason;
    this.detail = detail;
    this.retryAfter = retryAfter;
  }

  /**
   * Routes the whole request to {@code chosen}.
   *
   * @param chosen the replica to serve the request; its id, epoch and matched tokens are taken
   * @param cost the predicted time to first token, or {@link CostBreakdown#empty()} to let the router
   *     estimate it; never a weighted ranking score (see {@link #withScore})
   * @return a routed decision
   */
  public static RoutingDecision routed(CandidateView chosen, CostBreakdown cost) {
    Checks.notNull(chosen, "chosen");
    return new RoutingDecision(chosen.replicaId(), chosen.epoch(), null, -1,
        Checks.notNull(cost, "cost"), Double.NaN, chosen.matchedTokens(), null, null, null);
  }

  /**
   * Routes the whole request to {@code chosen}, with the policy's ranking score: the same decision
   * as {@code routed(chosen, cost).withScore(score)}, built once (a policy that ranks by a score
   * returns one on every decision).
   *
   * @param chosen the replica to serve the request; its id, epoch and matched tokens are taken
   * @param cost the predicted time to first token, or {@link CostBreakdown#empty()} to let the router
   *     estimate it; never a weighted ranking score
   * @param score the policy's ranking score; finite (see {@link #withScore})
   * @return a routed decision
   * @throws IllegalArgumentException if {@code score} is NaN or infinite
   */
  public static RoutingDecision routed(CandidateView chosen, CostBreakdown cost, double score) {
    Checks.notNull(chosen, "chosen");
    Checks.argument(Double.isFinite(score), "score", score, "finite");
    return new RoutingDecision(chosen.replicaId(), chosen.epoch(), null, -1,
        Checks.notNull(cost, "cost"), score, chosen.matchedTokens(), null, null, null);
  }

  /**
   * Routes prefill to {@code prefill} and decode to {@code decode} (disaggregated serving).
   *
   * @param prefill the replica to prefill on; its matched tokens are taken
   * @param decode the replica to decode on, which {@link #replicaId()} names
   * @param cost the predicted time to first token of the pair, or {@link CostBreakdown#empty()}
   * @return a routed decision for the pair
   */
  public static RoutingDecision routedPair(
      CandidateView prefill, CandidateView decode, CostBreakdown cost) {
    Checks.notNull(prefill, "prefill");
    Checks.notNull(decode, "decode");
    return new RoutingDecision(decode.replicaId(), decode.epoch(), prefill.replicaId(),
        prefill.epoch(), Checks.notNull(cost, "cost"), Double.NaN, prefill.matchedTokens(), null, null,
        null);
  }

  /**
   * A rejection.
   *
   * @param reason why the request was rejected; not null
   * @param detail human-readable detail; not null
   * @param retryAfter when a retry could plausibly be admitted, or {@code null} if waiting would not help
   * @return a rejected decision
   */
  public static RoutingDecision rejected(RejectReason reason, String detail, Duration retryAfter) {
    Checks.notNull(reason, "reason");
    Checks.notNull(detail, "detail");
    if (retryAfter != null) {
      Checks.nonNegative(retryAfter, "retryAfter");
    }
    return new RoutingDecision(null, -1, null, -1, CostBreakdown.empty(), Double.NaN, 0, reason,
        detail, retryAfter);
  }

  /**
   * This decision with {@code cost} in place of its own (the router fills in missing estimates).
   *
   * @param cost the predicted time to first token, by term; not null
   * @return a copy with {@code cost}
   * @throws IllegalStateException if the decision is a rejection (rejections carry no cost)
   */
  public RoutingDecision withCost(CostBreakdown cost) {
    Checks.notNull(cost, "cost");
    requireRouted("withCost");
    return new RoutingDecision(replicaId, epoch, prefillReplicaId, prefillEpoch, cost, score,
        matchedTokens, reason, detail, retryAfter);
  }

  /**
   * This decision with the policy's ranking score: what the policy minimised to choose it, in the
   * policy's own units (hybrid-cost: weighted milliseconds plus externalities). For explanation only;
   * the router and admission read {@link #cost()}.
   *
   * @param score the policy's ranking score; finite
   * @return a copy with {@code score}
   * @throws IllegalArgumentException if {@code score} is NaN or infinite
   * @throws IllegalStateException if the decision is a rejection
   */
  public RoutingDecision withScore(double score) {
    Checks.argument(Double.isFinite(score), "score", score, "finite");
    requireRouted("withScore");
    return new RoutingDecision(replicaId, epoch, prefillReplicaId, prefillEpoch, cost, score,
        matchedTokens, reason, detail, retryAfter);
  }

  /** {@return whether the request was routed; {@code false} for a rejection} */
  public boolean isRouted() {
    return reason == null;
  }

  /**
   * {@return the replica that serves the request (the decode replica of a pair)}
   *
   * @throws IllegalStateException if the decision is a rejection
   */
  public String replicaId() {
    requireRouted("replicaId");
    return replicaId;
  }

  /** {@return epoch of {@link #replicaId()}; report it back in the {@link Outcome}} */
  public long epoch() {
    requireRouted("epoch");
    return epoch;
  }

  /** {@return the prefill replica when prefill and decode are placed separately} */
  public Optional<String> prefillReplicaId() {
    return Optional.ofNullable(prefillReplicaId);
  }

  /** {@return epoch of the prefill replica, or -1 when there is none} */
  public long prefillEpoch() {
    return prefillEpoch;
  }

  /**
   * {@return predicted time to first token, by term, in milliseconds: what admission compares with
   * the request's deadline} Empty for rejections.
   */
  public CostBreakdown cost() {
    return cost;
  }

  /** {@return the policy's ranking score ({@link #withScore}); empty when the policy gave none} */
  public OptionalDouble score() {
    return Double.isNaN(score) ? OptionalDouble.empty() : OptionalDouble.of(score);
  }

  /** {@return prompt tokens the router believes the chosen (prefill) replica already holds} */
  public int matchedTokens() {
    return matchedTokens;
  }

  /**
   * {@return why the request was rejected}
   *
   * @throws IllegalStateException if the decision routed the request
   */
  public RejectReason reason() {
    if (reason == null) {
      throw new IllegalStateException("reason: none (expected: a rejected decision)");
    }
    return reason;
  }

  /** {@return human-readable detail of a rejection; empty string for routed decisions} */
  public String detail() {
    return detail == null ? "" : detail;
  }

  /** {@return when to retry a rejected request; empty if routed, or if waiting would not help} */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  private void requireRouted(String what) {
    if (reason != null) {
      throw new IllegalStateException(
          what + ": none, request was rejected (" + reason + ") (expected: a routed decision)");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RoutingDecision d && epoch == d.epoch && prefillEpoch == d.prefillEpoch
        && matchedTokens == d.matchedTokens && Objects.equals(replicaId, d.replicaId)
        && Objects.equals(prefillReplicaId, d.prefillReplicaId) && cost.equals(d.cost)
        && Double.compare(score, d.score) == 0
        && reason == d.reason && Objects.equals(detail, d.detail)
        && Objects.equals(retryAfter, d.retryAfter);
  }

  @Override
  public int hashCode() {
    return Objects.hash(replicaId, epoch, prefillReplicaId, cost, matchedTokens, reason, retryAfter);
  }

  @Override
  public String toString() {
    if (reason != null) {
      return "rejected " + reason + ": " + detail
          + (retryAfter == null ? "" : ", retry after " + Checks.millisText(retryAfter));
    }
    return "routed to " + replicaId + "#" + epoch
        + (prefillReplicaId == null ? "" : " (prefill on " + prefillReplicaId + "#" + prefillEpoch + ")")
        + ", matched " + matchedTokens + " tokens, predicted " + cost
        + (Double.isNaN(score) ? "" : ", score " + String.format(java.util.Locale.ROOT, "%.1f", score));
  }
}
