package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.List;

/**
 * The load-blind strawman: route to the candidate believed to hold the longest prefix of the prompt,
 * whatever its queue. Ties (including "nobody holds anything") are broken uniformly at random, so
 * cold traffic is spread rather than all sent to the first replica; load never enters the choice.
 *
 * <p>In the worked example of docs/cost-model.md ("Partial locality wins"), R0 holds all 4,000
 * reusable tokens behind a 300 ms queue, R1 is idle with no match, R2 holds 2,000 tokens behind
 * 100 ms: cache-only routing chooses R0, least-queue R1, and the hybrid cost R2 (220 ms). This
 * policy exists to be beaten: it is what pure cache affinity does without a load guard, piling a
 * hot prefix onto one replica.
 *
 * <p>Signal: {@link CandidateView#matchedTokens()} from the router's prefix index (approximate or
 * KV-event exact mode).
 *
 * <p>Thread-safety: stateless.
 */
final class CacheOnlyPolicy implements RoutingPolicy {
  static final String NAME = "cache-only";

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
    int i = Picks.randomMin(candidates, c -> -c.matchedTokens(), context.random());
    return RoutingDecision.routed(candidates.get(i), CostBreakdown.empty());
  }
}
