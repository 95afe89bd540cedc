package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.PairSelection;
import java.util.List;

/**
 * SGLang's cache-aware load balancer: a threshold switch between load balancing (when the fleet is
 * imbalanced) and longest-prefix cache affinity (when it is not).
 *
 * <p>Source: {@code lightseekorg/smg} {@code model_gateway/src/policies/cache_aware.rs}
 * ({@code select_worker}, {@code select_worker_min_load}, {@code select_worker_with_tokens}); also
 * {@code sgl-project/sglang} {@code sgl-model-gateway/src/policies/cache_aware.rs} and the older
 * {@code sgl-router/src/policies/cache_aware.rs}. The rule, kept exactly:
 * <pre>
 * L_i = router-local in-flight request count of worker i
 * imbalanced := (max L - min L > balance_abs_threshold) AND (max L > balance_rel_threshold x min L)
 * if imbalanced: argmin L                       (tie-break key (load, index))
 * else:
 *     (matched, tenant) = longest prefix match over the workers
 *     match_rate = matched / prompt length      (0 when the prompt is empty)
 *     if match_rate > cache_threshold: route to tenant
 *     else: argmin L                            (current code; older routers took the smallest tree)
 * insert the prompt for the chosen worker
 * </pre>
 * Defaults are SMG's and SGLang's CLI defaults ({@code main.rs}, also the docs table):
 * {@code cache_threshold} 0.3, {@code balance_abs_threshold} 64, {@code balance_rel_threshold} 1.5
 * (the library {@code CacheAwareConfig::default()} has 0.5 / 32 / 1.1). SMG's KV-usage imbalance
 * triggers ({@code balance_token_usage_threshold}, {@code overload_token_usage_threshold}) default to
 * 1.0, i.e. disabled, and are not implemented.
 *
 * <p>Differences of signal, not of rule: SMG's approximate tree is built from routing history over raw
 * characters (HTTP) or token ids (gRPC); here the longest match comes from the router's block-hash
 * prefix index (approximate or KV-event exact), so a match counts whole blocks only and the rate is
 * {@link CandidateView#matchedTokens()} over {@code promptTokens}. The router inserts the routed
 * prompt for the chosen replica itself, so the last line is already done. When several replicas hold
 * the longest match, SMG's tree reports one tenant of that node; here the tie goes to the lower load,
 * then the first in candidate order (SMG's event-driven flavour's tie-break). {@code L_i} is
 * {@link CandidateView#inFlightRequests()}, SMG's {@code worker.load()} (the gateway's own count).
 *
 * <p>Tie-breaks: {@code argmin L} is Rust's {@code min_by_key(load)} in the code read, i.e. the first
 * minimum, key (load, index); SMG PR #1714 (the PD fix for "every request to the first prefill
 * worker") puts the worker's processed-request count between the two, which the views do not carry. SMG computes
 * min and max L over all registered workers of the model; here over the eligible candidates.
 *
 * <p>Disaggregated fleets: as SGLang's PD router with one {@code --policy} (its prefill and decode
 * policies fall back to it), this rule picks the prefill replica, then the decode replica among those
 * that can hold the request's KV when prefill ends ({@link PdPairs}).
 *
 * <p>Thread-safety: immutable.
 */
final class CacheAwarePolicy implements RoutingPolicy {
  static final String NAME = "cache-aware";
  static final double DEFAULT_CACHE_THRESHOLD = 0.3;
  static final int DEFAULT_BALANCE_ABS_THRESHOLD = 64;
  static final double DEFAULT_BALANCE_REL_THRESHOLD = 1.5;

  private final double cacheThreshold;
  private final int balanceAbsThreshold;
  private final double balanceRelThreshold;

  CacheAwarePolicy(double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold) {
    this.cacheThreshold = cacheThreshold;
    this.balanceAbsThreshold = balanceAbsThreshold;
    this.balanceRelThreshold = balanceRelThreshold;
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
    int minLoad = Integer.MAX_VALUE;
    int maxLoad = 0;
    for (CandidateView c : candidates) {
      minLoad = Math.min(minLoad, c.inFlightRequests());
      maxLoad = Math.max(maxLoad, c.inFlightRequests());
    }
    int leastLoaded = Picks.firstMin(candidates, CandidateView::inFlightRequests);
    if (isImbalanced(minLoad, maxLoad, balanceAbsThreshold, balanceRelThreshold)) {
      return routed(candidates.get(leastLoaded));
    }
    int tenant = longestMatch(candidates);
    int promptTokens = context.request().promptTokens();
    double matchRate =
        promptTokens == 0 ? 0 : (double) candidates.get(tenant).matchedTokens() / promptTokens;
    return routed(candidates.get(matchRate > cacheThreshold ? tenant : leastLoaded));
  }

  /** SMG: {@code max - min > abs && (max as f32) > (min as f32) * rel}. */
  static boolean isImbalanced(int minLoad, int maxLoad, int abs, double rel) {
    return (long) maxLoad - minLoad > abs && (float) maxLoad > (float) minLoad * (float) rel;
  }

  /** The candidate with the most matched tokens; ties to the lower load, then the first. */
  private static int longestMatch(List<CandidateView> candidates) {
    int best = 0;
    for (int i = 1; i < candidates.size(); i++) {
      CandidateView c = candidates.get(i);
      CandidateView b = candidates.get(best);
      if (c.matchedTokens() > b.matchedTokens()
          || (c.matchedTokens() == b.matchedTokens() && c.inFlightRequests() < b.inFlightRequests())) {
        best = i;
      }
    }
    return best;
  }

  private static RoutingDecision routed(CandidateView chosen) {
    return RoutingDecision.routed(chosen, CostBreakdown.empty());
  }
}
