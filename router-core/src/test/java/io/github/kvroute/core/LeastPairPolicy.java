package io.github.kvroute.core;

import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;

/**
 * hybrid-cost's pair rule with unit weights: the ready pair of least prefill estimate plus move.
 * router-core cannot depend on router-policies, so its tests bring this one.
 */
final class LeastPairPolicy implements RoutingPolicy {
  @Override
  public String name() {
    return "least-pair";
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    return PairSelection.leastCost(context, context::estimateMillis, 1);
  }
}
