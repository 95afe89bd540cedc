package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.List;

/**
 * Routes to the candidate with the fewest in-flight requests, ties broken uniformly at random.
 *
 * <p>Source: AIBrix {@code least-request} ({@code vllm-project/aibrix}
 * {@code pkg/plugins/gateway/algorithms/least_request.go}: minimum running-request count over the
 * ready pods, {@code rand.Intn} among the tied). Envoy's {@code LEAST_REQUEST} compares only
 * {@code choice_count} random hosts (default 2) when weights are equal; that sampled variant is
 * {@code power-of-two}, and this policy is Envoy's rule with every host examined.
 *
 * <p>Signal: {@link CandidateView#inFlightRequests()}, this router's own count of requests it sent that
 * have no outcome yet. It is always fresh (no telemetry lag), like the gateway-tracked count AIBrix
 * uses; it does not see traffic that other routers send to the same replica.
 *
 * <p>Thread-safety: stateless.
 */
final class LeastRequestPolicy implements RoutingPolicy {
  static final String NAME = "least-request";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    List<CandidateView> candidates = context.candidates();
    if (candidates.isEmpty()) {
      return context.noCandidates();
    }
    int i = Picks.randomMin(candidates, CandidateView::inFlightRequests, context.random());
    return RoutingDecision.routed(candidates.get(i), CostBreakdown.empty());
  }
}
