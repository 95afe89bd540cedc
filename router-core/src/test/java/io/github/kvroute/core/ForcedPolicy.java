package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;

/**
 * Routes to one named replica whenever it is a candidate, with an empty cost so the router fills in
 * its own estimate; declines with no-candidates otherwise.
 */
final class ForcedPolicy implements RoutingPolicy {
  private final String replicaId;

  ForcedPolicy(String replicaId) {
    this.replicaId = replicaId;
  }

  @Override
  public String name() {
    return "forced " + replicaId;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    for (CandidateView c : context.candidates()) {
      if (c.replicaId().equals(replicaId)) {
        return RoutingDecision.routed(c, CostBreakdown.empty());
      }
    }
    return context.noCandidates();
  }
}
