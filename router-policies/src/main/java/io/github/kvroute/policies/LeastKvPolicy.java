package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.List;
import java.util.OptionalDouble;

/**
 * Routes to the candidate with the lowest KV-cache utilisation, ties broken uniformly at random;
 * candidates whose usage is unknown are not scored, and when none is known the choice is uniformly
 * random.
 *
 * <p>Sources: AIBrix {@code least-kv-cache} ({@code vllm-project/aibrix}
 * {@code pkg/plugins/gateway/algorithms/least_kv_cache.go}: score = GPU KV usage (+ CPU KV usage when
 * reported), polarity least; {@code RouteByScore} skips unscored pods, breaks ties with
 * {@code rand.Intn} and falls back to a random ready pod when nothing was scored); llm-d's
 * {@code kv-cache-utilization-scorer} ranks the same way ({@code 1 - KVCacheUsagePercent}).
 *
 * <p>Signal: {@link CandidateView#kvUtilization()} (the replica's reported blocks used over total,
 * plus this router's sends since the report), or the raw report's ratio when the block size is not
 * reported. AIBrix reads the scraped {@code gpu_cache_usage_perc} alone. Replicas report no CPU (swap)
 * KV usage here, so that AIBrix term is always 0 (as on vLLM V1, where the metric no longer exists).
 *
 * <p>Thread-safety: stateless.
 */
final class LeastKvPolicy implements RoutingPolicy {
  static final String NAME = "least-kv";

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
    // When nothing is known every key is +infinity and the reservoir picks uniformly among all:
    // AIBrix's random fallback.
    int i = Picks.randomMin(candidates, LeastKvPolicy::usageOrUnscored, context.random());
    return RoutingDecision.routed(candidates.get(i), CostBreakdown.empty());
  }

  /** Unknown usage sorts after every known one, so it wins only when nothing is known. */
  private static double usageOrUnscored(CandidateView c) {
    OptionalDouble u = KvUsage.of(c);
    return u.isPresent() ? u.getAsDouble() : Double.POSITIVE_INFINITY;
  }
}
