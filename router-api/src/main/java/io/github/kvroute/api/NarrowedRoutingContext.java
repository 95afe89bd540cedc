package io.github.kvroute.api;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * A {@link RoutingContext} with other candidate lists, forwarding everything else to its base.
 *
 * <p>Thread-safety: as its base's; its lists are immutable copies.
 */
final class NarrowedRoutingContext implements RoutingContext {
  private final RoutingContext base;
  private final List<CandidateView> candidates;
  private final List<CandidateView> prefill;
  private final List<CandidateView> decode;

  NarrowedRoutingContext(RoutingContext base, List<CandidateView> candidates,
      List<CandidateView> prefill, List<CandidateView> decode) {
    this.base = base;
    this.candidates = List.copyOf(Checks.notNull(candidates, "candidates"));
    this.prefill = List.copyOf(Checks.notNull(prefill, "prefillCandidates"));
    this.decode = List.copyOf(Checks.notNull(decode, "decodeCandidates"));
  }

  @Override
  public Request request() {
    return base.request();
  }

  @Override
  public List<CandidateView> candidates() {
    return candidates;
  }

  @Override
  public List<CandidateView> prefillCandidates() {
    return prefill;
  }

  @Override
  public List<CandidateView> decodeCandidates() {
    return decode;
  }

  @Override
  public RandomSource random() {
    return base.random();
  }

  @Override
  public long nowNanos() {
    return base.nowNanos();
  }

  @Override
  public CostBreakdown estimate(CandidateView candidate) {
    return base.estimate(candidate);
  }

  @Override
  public RoutingDecision routedWithEstimate(CandidateView chosen, double score) {
    return base.routedWithEstimate(chosen, score);
  }

  @Override
  public double estimateMillis(CandidateView candidate) {
    return base.estimateMillis(candidate);
  }

  @Override
  public double weightedEstimateMillis(CandidateView candidate,
      ToDoubleFunction<String> weightOfTerm) {
    return base.weightedEstimateMillis(candidate, weightOfTerm);
  }

  @Override
  public double kvTransferMillis(CandidateView prefill, CandidateView decode) {
    return base.kvTransferMillis(prefill, decode);
  }

  @Override
  public double decodeWaitMillis(CandidateView decode) {
    return base.decodeWaitMillis(decode);
  }

  @Override
  public double peerRouters() {
    return base.peerRouters();
  }

  @Override
  public RoutingDecision noCandidates() {
    return base.noCandidates();
  }
}
