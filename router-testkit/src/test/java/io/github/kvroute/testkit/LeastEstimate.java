package io.github.kvroute.testkit;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;

/**
 * Argmin of the router's own estimate (hybrid-cost's rule without its tie-breaking): exercises the
 * per-replica books on every route. router-testkit's tests cannot depend on router-policies (it
 * depends on router-testkit), so they bring this one.
 */
final class LeastEstimate implements RoutingPolicy {
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
