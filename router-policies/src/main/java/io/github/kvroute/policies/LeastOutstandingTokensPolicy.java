package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.List;

/**
 * Routes to the candidate with the least outstanding work in tokens: prompt plus remaining output
 * budget, summed over everything in flight there.
 *
 * <p>Rule: a replica's outstanding tokens are {@code prompt_len + max(max_tokens - generated,  0)}
 * summed over its waiting and running requests; the least wins, ties to the first replica in order.
 * Here the candidates are in the router's stable order (by replica id).
 *
 * <p>Signal: {@link CandidateView#estimatedOutstandingTokens()}: the replica's reported queued prefill
 * plus outstanding decode tokens, plus what this router sent since that report; when the replica
 * reports neither field, this router's own in-flight prompt plus planned output tokens. A scheduler
 * inside the engines would read their queues directly; a router sees them through telemetry,
 * corrected by its own sends.
 *
 * <p>Thread-safety: stateless.
 */
final class LeastOutstandingTokensPolicy implements RoutingPolicy {
  static final String NAME = "least-outstanding-tokens";

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
    int i = Picks.firstMin(candidates, CandidateView::estimatedOutstandingTokens);
    return RoutingDecision.routed(candidates.get(i), CostBreakdown.empty());
  }
}
