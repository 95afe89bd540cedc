package io.github.kvroute.core;

import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;

/** Uniform choice with the router's injected randomness: decisions reproduce only from the seed. */
final class RandomPickPolicy implements RoutingPolicy {
  @Override
  public String name() {
    return "random-pick";
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    int n = context.candidates().size();
    if (n == 0) {
      return context.noCandidates();
    }
    return RoutingDecision.routed(context.candidates().get(context.random().nextInt(n)),
        CostBreakdown.empty());
  }
}
