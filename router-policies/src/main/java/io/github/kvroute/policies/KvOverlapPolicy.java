package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.PairSelection;
import java.util.List;

/**
 * NVIDIA Dynamo's KV router cost: blocks to prefill, weighted, plus blocks that would be active for
 * decode; lowest cost wins, or a softmax sample when the temperature is positive.
 *
 * <p>Source: the documented cost ({@code ai-dynamo/dynamo} {@code docs/components/router/README.md},
 * docs.nvidia.com "Routing Concepts"):
 * <pre>
 * logit_i          = overlap_score_weight x prefill_blocks_i + decode_blocks_i     (lower is better)
 * prefill_blocks_i = (input_tokens - overlap_blocks_i x block_size) / block_size
 * decode_blocks_i  = blocks active on i if the request were routed there
 * </pre>
 * The docs' example: W1 = 1.0 x 8 + 10 = 18, W2 = 5 + 5 = 10, W3 = 2 + 9 = 11, so W2. Selection
 * ({@code lib/kv-router/src/scheduling/selector/default.rs}): temperature 0 takes the minimum, ties
 * broken uniformly at random ({@code minimum_cost_index}); temperature {@code T > 0} samples
 * {@code p_i ∝ exp(-(c_i - c_min) / ((c_max - c_min) T))}, uniform when all costs are equal
 * ({@code softmax_sample_index}). Defaults ({@code lib/kv-router/src/scheduling/config.rs}):
 * {@code overlap_score_weight} 1.0, {@code router_temperature} 0.0. The current code's extra terms
 * (overlap credit decay, host/disk tiers, active-request weight) are newer refinements of this cost,
 * off or absent in the documented formula, and not implemented.
 *
 * <p>Signals (the rule is exact; these are the router's stand-ins for Dynamo's state):
 * <ul>
 *   <li>{@code overlap_blocks_i x block_size} is {@link CandidateView#matchedTokens()} from the
 *       router's prefix index (KV events or approximate), in the router's block size; the prefill term
 *       is floored at 0.
 *   <li>Dynamo's router tracks each worker's active blocks itself ({@code router_track_active_blocks},
 *       default true): the blocks of the sequences it routed there that have not finished. Here that is
 *       {@link CandidateView#inFlightPromptTokens()} / block size: the prompts of this router's own
 *       in-flight requests, freed on outcome, always fresh (output blocks are not counted, as with
 *       Dynamo's default {@code router_track_output_blocks} false). Unlike Dynamo it cannot
 *       deduplicate blocks shared by in-flight requests (the view has no per-replica set of active
 *       block hashes).
 *   <li>The request's own new blocks on {@code i}: its blocks not already matched there, i.e.
 *       {@code prefill_blocks_i} ({@code router_assume_kv_reuse}, default true, counts shared blocks
 *       once). This reproduces the docs' example: W1 has 2 active, W2 0, W3 7.
 * </ul>
 * The decision carries no cost of its own (block counts are not milliseconds); the router estimates
 * the chosen replica's TTFT for admission.
 *
 * <p>Disaggregated fleets: this cost on the prefill pool, then on the decode replicas ready for the
 * request ({@link PdPairs}); decode replicas hold no indexed prefix, so there the overlap term is 0
 * and the decode blocks decide, as Dynamo's decode stage runs with overlap scoring disabled.
 *
 * <p>Thread-safety: immutable; allocation-free (costs are recomputed in each pass).
 */
final class KvOverlapPolicy implements RoutingPolicy {
  static final String NAME = "kv-overlap";

  private final double overlapScoreWeight;
  private final double temperature;

  KvOverlapPolicy(double overlapScoreWeight, double temperature) {
    this.overlapScoreWeight = overlapScoreWeight;
    this.temperature = temperature;
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
    int promptTokens = context.request().promptTokens();
    double blockSize = context.request().prompt().blockSizeTokens();
    int chosen = temperature == 0
        ? Picks.randomMin(candidates, c -> cost(c, promptTokens, blockSize), context.random())
        : softmaxSample(candidates, promptTokens, blockSize, context.random().nextDouble());
    return RoutingDecision.routed(candidates.get(chosen), CostBreakdown.empty());
  }

  /** Dynamo's logit for {@code c}, in blocks. */
  double cost(CandidateView c, int promptTokens, double blockSize) {
    double prefillBlocks = Math.max(0, promptTokens - c.matchedTokens()) / blockSize;
    double decodeBlocks = c.inFlightPromptTokens() / blockSize + prefillBlocks;
    return overlapScoreWeight * prefillBlocks + decodeBlocks;
  }

  /** Dynamo's {@code softmax_sample_index}: row where the cumulative probability reaches sample. */
  private int softmaxSample(
      List<CandidateView> candidates, int promptTokens, double blockSize, double sample) {
    int n = candidates.size();
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (CandidateView c : candidates) {
      double cost = cost(c, promptTokens, blockSize);
      min = Math.min(min, cost);
      max = Math.max(max, cost);
    }
    double scale = min == max ? 0 : 1.0 / ((max - min) * temperature);
    double sum = 0;
    for (CandidateView c : candidates) {
      sum += weight(cost(c, promptTokens, blockSize), min, scale);
    }
    double cumulative = 0;
    int lastPossible = 0;
    for (int i = 0; i < n; i++) {
      double p = weight(cost(candidates.get(i), promptTokens, blockSize), min, scale) / sum;
      cumulative += p;
      lastPossible = p > 0 ? i : lastPossible;
      if (p > 0 && sample <= cumulative) {
        return i;
      }
    }
    return lastPossible; // rounding left the sample above the total (Dynamo: the last row)
  }

  /** Unnormalised softmax weight; all 1 (uniform) when every cost is equal ({@code scale} 0). */
  private static double weight(double cost, double min, double scale) {
    return Math.exp(-(cost - min) * scale);
  }

  /** The sampling probability of each candidate, for tests and diagnostics. */
  double[] probabilities(List<CandidateView> candidates, int promptTokens, double blockSize) {
    int n = candidates.size();
    double[] p = new double[n];
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      p[i] = cost(candidates.get(i), promptTokens, blockSize);
      min = Math.min(min, p[i]);
      max = Math.max(max, p[i]);
    }
    double scale = min == max ? 0 : 1.0 / ((max - min) * temperature);
    double sum = 0;
    for (int i = 0; i < n; i++) {
      p[i] = weight(p[i], min, scale);
      sum += p[i];
    }
    for (int i = 0; i < n; i++) {
      p[i] /= sum;
    }
    return p;
  }
}
