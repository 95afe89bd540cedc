package io.github.kvroute.policies;

import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.PairSelection;

/**
 * Picks a candidate uniformly at random: the load- and cache-blind baseline.
 *
 * <p>Sources: SGLang/SMG {@code random} ({@code lightseekorg/smg}
 * {@code model_gateway/src/policies/random.rs}: a uniform index over the healthy workers) and AIBrix
 * {@code random} (registered name in {@code vllm-project/aibrix}
 * {@code pkg/plugins/gateway/algorithms/}; also AIBrix's fallback when nothing can be scored).
 * Randomness comes from {@link RoutingContext#random()}, so decisions reproduce from the router's seed.
 *
 * <p>Disaggregated fleets: as SGLang's PD router, this rule on each pool ({@link PdPairs}).
 *
 * <p>Thread-safety: stateless.
 */
final class RandomPolicy implements RoutingPolicy {
  static final String NAME = "random";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    int n = context.candidates().size();
    if (n == 0) {
      return PairSelection.isDisaggregated(context) ? PdPairs.split(context, this, this)
          : context.noCandidates();
    }
    return RoutingDecision.routed(
        context.candidates().get(context.random().nextInt(n)), CostBreakdown.empty());
  }
}
