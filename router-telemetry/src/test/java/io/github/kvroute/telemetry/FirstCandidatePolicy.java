package io.github.kvroute.telemetry;

import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;

/** Routes to the first candidate; the tests here check telemetry, not routing. */
public final class FirstCandidatePolicy implements RoutingPolicy {
  @Override
  public String name() {
    return "first-candidate";
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    return context.candidates().isEmpty() ? context.noCandidates()
        : RoutingDecision.routed(context.candidates().get(0), CostBreakdown.empty());
  }
}
