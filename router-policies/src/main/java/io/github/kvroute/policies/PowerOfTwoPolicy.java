package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.PairSelection;
import java.util.List;

/**
 * Power of two choices: sample two distinct candidates uniformly and route to the less loaded.
 *
 * <p>Source: SGLang/SMG {@code power_of_two} ({@code lightseekorg/smg}
 * {@code model_gateway/src/policies/power_of_two.rs}; earlier {@code sgl-project/sglang}
 * {@code sgl-router/src/policies/power_of_two.rs}), rule kept exactly:
 * <ol>
 *   <li>one candidate: route to it;
 *   <li>{@code idx1 = U[0, n)}, {@code idx2 = (idx1 + 1 + U[0, n - 1)) mod n} (distinct in O(1));
 *   <li>if <em>both</em> have a token load, compare token loads; if either lacks one, compare
 *       <em>both</em> by request count ("degrade BOTH to request counts to ensure fairness");
 *   <li>{@code load1 <= load2 ? worker1 : worker2}.
 * </ol>
 * Also Mitzenmacher's "power of two choices", as in Finagle's {@code P2C} balancer.
 *
 * <p>Signals: SMG's token load is the worker's polled KV-token load ({@code kv_cache_tokens}, polled
 * every {@code worker_load_check_interval}, 10 s); here a candidate has a token load when its report
 * carries queued-prefill or outstanding-decode tokens, and the load is
 * {@link CandidateView#estimatedOutstandingTokens()} (that report plus this router's sends since it,
 * so it is fresher than SMG's poll). The request count is {@link CandidateView#inFlightRequests()},
 * this router's own in-flight count, as SMG's {@code worker.load()} is the gateway's own count.
 *
 * <p>Disaggregated fleets: as SGLang's PD router, this rule on each pool ({@link PdPairs}).
 *
 * <p>Thread-safety: stateless; the two samples come from {@link RoutingContext#random()}.
 */
final class PowerOfTwoPolicy implements RoutingPolicy {
  static final String NAME = "power-of-two";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    List<CandidateView> candidates = context.candidates();
    int n = candidates.size();
    if (n == 0) {
      return PairSelection.isDisaggregated(context) ? PdPairs.split(context, this, this)
          : context.noCandidates();
    }
    if (n == 1) {
      return RoutingDecision.routed(candidates.get(0), CostBreakdown.empty());
    }
    int idx1 = context.random().nextInt(n);
    int idx2 = (idx1 + 1 + context.random().nextInt(n - 1)) % n;
    CandidateView w1 = candidates.get(idx1);
    CandidateView w2 = candidates.get(idx2);
    long load1;
    long load2;
    if (hasTokenLoad(w1) && hasTokenLoad(w2)) {
      load1 = w1.estimatedOutstandingTokens();
      load2 = w2.estimatedOutstandingTokens();
    } else {
      load1 = w1.inFlightRequests();
      load2 = w2.inFlightRequests();
    }
    return RoutingDecision.routed(load1 <= load2 ? w1 : w2, CostBreakdown.empty());
  }

  /** Whether the replica reports its token work (SMG: whether a token load was polled). */
  static boolean hasTokenLoad(CandidateView c) {
    ReplicaSnapshot s = c.snapshot();
    return s.queuedPrefillTokens().isPresent() || s.outstandingDecodeTokens().isPresent();
  }
}
