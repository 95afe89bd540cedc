package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;

/**
 * The decision rule of hybrid-cost with unit weights, without its tie-breaking: argmin over
 * {@link RoutingContext#candidates()} of the router's own estimate (the first of equal ones wins).
 * router-core cannot depend on router-policies, so its tests bring this one.
 */
final class LeastEstimatePolicy implements RoutingPolicy {
  @Override
  public String name() {
    return "least-estimate";
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    CandidateView best = null;
    CostBreakdown bestCost = null;
    for (CandidateView c : context.candidates()) {
      CostBreakdown cost = context.estimate(c);
      if (bestCost == null || cost.totalMillis() < bestCost.totalMillis()) {
        best = c;
        bestCost = cost;
      }
    }
    return best == null ? context.noCandidates() : RoutingDecision.routed(best, bestCost);
  }
}
