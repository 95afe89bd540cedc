package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.PairSelection;
import java.util.List;
import java.util.OptionalDouble;

/**
 * llm-d's default scheduling profile: a weighted sum of three scorers, each clamped to [0, 1], and
 * the maximum total wins, ties broken at random.
 *
 * <p>Sources: {@code llm-d/llm-d-inference-scheduler} {@code pkg/epp/config/loader/defaults.go} (the
 * default profile: {@code prefix-cache-scorer} weight 3, {@code queue-scorer} 2,
 * {@code kv-cache-utilization-scorer} 2, {@code max-score-picker}); {@code scheduler_profile.go}
 * {@code runScorerPlugins}: {@code total = Σ weight x clamp(score, 0, 1)}; the scorers
 * ({@code kubernetes-sigs/gateway-api-inference-extension} {@code pkg/epp/scheduling/framework/plugins/},
 * code now in llm-d-router):
 * <ul>
 *   <li>prefix ({@code multi/prefix/plugin.go}): {@code matchBlocks / totalBlocks}, 0 when the prompt
 *       has no block; the prompt is hashed up to {@code maxPrefixBlocksToMatch}
 *       ({@code defaultMaxPrefixBlocks} 256), so both counts are capped there;
 *   <li>queue ({@code scorer/queue.go}): {@code (maxQ - q) / (maxQ - minQ)} over the candidates'
 *       {@code WaitingQueueSize}; 1.0 for all when every queue is equal;
 *   <li>KV ({@code scorer/kvcache_utilization.go}): {@code 1 - KVCacheUsagePercent}.
 * </ul>
 * The {@code max-score-picker} breaks ties at random; here uniformly among the tied, by reservoir
 * sampling with {@link RoutingContext#random()}.
 *
 * <p>Signals: {@code matchBlocks} is {@link CandidateView#matchedBlocks()} from the router's prefix
 * index, in the router's token blocks (llm-d's approximate producer hashes 64-character blocks, about
 * 16 tokens; its precise mode uses the engine's blocks). {@code q} is the replica's reported
 * {@code waitingRequests} ({@code vllm:num_requests_waiting}), as llm-d scrapes it; a replica that does
 * not report it counts as 0, as llm-d's zero-valued metric would. KV usage is
 * {@link CandidateView#kvUtilization()} (the report plus this router's sends since it) or the report's
 * ratio; unknown counts as 0 usage (llm-d's zero-valued metric).
 *
 * <p>Disaggregated fleets: these scorers on the prefill pool, then on the decode replicas ready for
 * the request ({@link PdPairs}), as llm-d's disaggregation runs a profile per stage.
 *
 * <p>Thread-safety: immutable; allocation-free.
 */
final class WeightedScorePolicy implements RoutingPolicy {
  static final String NAME = "weighted-score";
  static final double DEFAULT_PREFIX_WEIGHT = 3;
  static final double DEFAULT_QUEUE_WEIGHT = 2;
  static final double DEFAULT_KV_WEIGHT = 2;
  static final int DEFAULT_MAX_PREFIX_BLOCKS = 256;

  private final double prefixWeight;
  private final double queueWeight;
  private final double kvWeight;
  private final int maxPrefixBlocks;

  WeightedScorePolicy(double prefixWeight, double queueWeight, double kvWeight, int maxPrefixBlocks) {
    this.prefixWeight = prefixWeight;
    this.queueWeight = queueWeight;
    this.kvWeight = kvWeight;
    this.maxPrefixBlocks = maxPrefixBlocks;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    List<CandidateView> candidates = context.candidates();
    if (candidates.isEmpty()) {
      return PairSelection.isDisaggregated(context) ? PdPairs.split(context, this, this)
          : context.noCandidates();
    }
    int minQ = Integer.MAX_VALUE;
    int maxQ = Integer.MIN_VALUE;
    for (CandidateView c : candidates) {
      minQ = Math.min(minQ, waiting(c));
      maxQ = Math.max(maxQ, waiting(c));
    }
    int totalBlocks = Math.min(context.request().prompt().blockCount(), maxPrefixBlocks);
    RandomSource random = context.random();
    int best = -1;
    double bestScore = Double.NEGATIVE_INFINITY;
    int ties = 0;
    for (int i = 0; i < candidates.size(); i++) {
      double s = score(candidates.get(i), totalBlocks, minQ, maxQ);
      if (best < 0 || s > bestScore) {
        best = i;
        bestScore = s;
        ties = 1;
      } else if (s == bestScore && random.nextInt(++ties) == 0) {
        best = i;
      }
    }
    return RoutingDecision.routed(candidates.get(best), CostBreakdown.empty());
  }

  /** The weighted total of one candidate. */
  double score(CandidateView c, int totalBlocks, int minQ, int maxQ) {
    return prefixWeight * clamp(prefixScore(c, totalBlocks))
        + queueWeight * clamp(queueScore(waiting(c), minQ, maxQ))
        + kvWeight * clamp(kvScore(c));
  }

  static double prefixScore(CandidateView c, int totalBlocks) {
    return totalBlocks == 0 ? 0 : (double) Math.min(c.matchedBlocks(), totalBlocks) / totalBlocks;
  }

  static double queueScore(int q, int minQ, int maxQ) {
    return maxQ == minQ ? 1.0 : (double) (maxQ - q) / (maxQ - minQ);
  }

  static double kvScore(CandidateView c) {
    OptionalDouble usage = KvUsage.of(c);
    return 1 - (usage.isPresent() ? usage.getAsDouble() : 0);
  }

  static int waiting(CandidateView c) {
    return c.snapshot().waitingRequests().orElse(0);
  }

  private static double clamp(double v) {
    return v < 0 ? 0 : Math.min(v, 1);
  }
}
