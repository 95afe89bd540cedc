package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingContext;
import java.util.function.ToDoubleFunction;

/**
 * The {@link RoutingContext} behaviour every context of this library shares: the request, the injected
 * time and randomness, and the {@link StandardEstimate}. Subclasses supply the candidate lists: the
 * router's per-thread {@link DecisionContext} over pooled views, or {@link RoutingContexts}' fixed lists.
 *
 * <p>Thread-safety: as the subclass's.
 */
abstract class StandardContext implements RoutingContext {
  Request request;
  long nowNanos;
  RandomSource random;
  StandardEstimate estimate;
  /** For a disaggregated pair's transfer; null model: the decode view's own transfer time. */
  CostModel costModel;
  Topology topology = Topology.uniform();

  void pairs(CostModel model, Topology placement) {
    this.costModel = model;
    this.topology = placement;
  }

  @Override
  public final Request request() {
    return request;
  }

  @Override
  public final RandomSource random() {
    return random;
  }

  @Override
  public final long nowNanos() {
    return nowNanos;
  }

  @Override
  public final CostBreakdown estimate(CandidateView candidate) {
    return estimate.breakdown(request, candidate);
  }

  @Override
  public final RoutingDecision routedWithEstimate(CandidateView chosen, double score) {
    return estimate.routed(request, chosen, score);
  }

  @Override
  public final double estimateMillis(CandidateView candidate) {
    return estimate.totalMillis(request, candidate);
  }

  @Override
  public final double weightedEstimateMillis(CandidateView candidate,
      ToDoubleFunction<String> weightOfTerm) {
    double[] weights = termWeights(weightOfTerm);
    return weights == null ? estimate.weightedMillis(request, candidate, weightOfTerm)
        : estimate.weightedMillis(request, candidate, weights);
  }

  /**
   * The weights {@code weightOfTerm} gives the estimate's terms, in their order, when this context
   * keeps them for the decision; null (the default) asks the function on every call.
   */
  double[] termWeights(ToDoubleFunction<String> weightOfTerm) {
    return null;
  }

  @Override
  public final double kvTransferMillis(CandidateView prefill, CandidateView decode) {
    return moveMillis(prefill, decode) + linkBacklogMillis(prefill, decode);
  }

  /** The move alone over the pair's link, without the moves ahead of it there. */
  final double moveMillis(CandidateView prefill, CandidateView decode) {
    if (costModel == null || topology.isUniform()) {
      return decode.kvTransferMillis();
    }
    return TransferCost.millis(request.promptTokens(), prefill.replicaId(), decode.replicaId(),
        topology, costModel);
  }

  /** Moves ahead of this one on the pair's link: none unless the router keeps books of them. */
  double linkBacklogMillis(CandidateView prefill, CandidateView decode) {
    return 0;
  }

  @Override
  public final double decodeWaitMillis(CandidateView decode) {
    double freed = decode instanceof MutableView v ? v.freedKvTokensPerSecond() : 0;
    return DecodeFit.waitMillis(request, decode, freed);
  }
}
