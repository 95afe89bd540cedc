package io.github.kvroute.policies;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Preble's E2 global scheduler: <em>exploit</em> a cached prefix when it is longer than what the
 * request adds, else <em>explore</em> by load; and rebalance away from a replica whose load reaches
 * 1.5 times the lightest one's.
 *
 * <p>Source: Preble (Srivatsa et al., ICLR 2025), {@code WukLab/preble}
 * {@code preble/global_scheduler_with_time.py} ({@code GlobalSchedulerWithTime.runtime_selector},
 * {@code SlidingWindowHistogram}, {@code handle_important_node_stealing}); defaults: window 3 minutes,
 * {@code HIGH_LOAD_THRESHOLD} 1.5, TPOT seeded at 0.15 s, rebalancing on, eviction cost off. Per request:
 * <ol>
 *   <li><b>Exploit</b> iff the request's new (uncached) tokens are fewer than its longest cached prefix
 *       ({@code leaf.num_tokens < leaf.context_so_far}): among the replicas holding that prefix, the one
 *       with the lowest load cost (first on ties, {@code np.argmin}).
 *   <li><b>Explore</b> otherwise: the lowest load cost over all candidates (first on ties).
 *   <li>Load cost of replica {@code g} (Preble's {@code get_node_cost} summed over g's prefixes):
 *       the prefill work routed to g within the window, plus
 *       {@code active requests x output length x TPOT}.
 *   <li><b>Rebalance</b> (only after {@value #WARMUP_PER_REPLICA} x N routed requests, as
 *       {@code handle_important_node_stealing}): when the exploit target's load is at least
 *       {@code rebalance_threshold} times the lightest candidate's, and moving this request's work
 *       {@code w} there keeps {@code heavy - w >= light + w} (Preble's "do not invert" check), the request
 *       goes to the lightest candidate instead.
 * </ol>
 *
 * <p>Simplifications, precisely:
 * <ul>
 *   <li>Preble keeps its own global radix tree of token ids. Here the longest cached prefix is the
 *       largest {@link CandidateView#matchedTokens()} in the router's block-hash prefix index (whole
 *       blocks; evictions mirrored), and its holders are the candidates matching that many tokens.
 *   <li>Preble's prefill term is, per prefix node, {@code miss_rate x count x prefill_time / |gpus|}
 *       over a 3-minute histogram of nodes. Here each routed request adds the prefill time of the tokens
 *       it missed on its replica ({@code overhead + missed x prefillMillisPerToken}) to that replica's
 *       window: the same expected recompute, per request instead of per node, in 60 time buckets.
 *   <li>Decode: active requests are this router's {@link CandidateView#inFlightRequests()}; output
 *       length is the mean planned output of the replica's window (the request's own when empty; Preble
 *       uses the node's median observed output, default {@code max_new_tokens}); TPOT is the replica's
 *       reported decode step time, else {@code tpot_ms} (default 150, Preble's 0.15 s seed).
 *   <li>Preble rebalances by re-assigning whole prefix subtrees ("important nodes") from the heavy GPU
 *       to the light one for future requests. Here it acts on the request at hand: redirected to the
 *       lightest replica, which then holds the prefix in the index, so later exploit decisions see both
 *       holders and take the less loaded one: migration or replication of the hot prefix in effect.
 *   <li>Not implemented: eviction cost (off by default in Preble), the TTFT overload detector, and the
 *       local per-GPU scheduler (Preble's second level).
 * </ul>
 *
 * <p>Thread-safety: per-replica windows are synchronized objects in a bounded Caffeine cache (expiring
 * after a window without access, on the router's ticker); the warm-up counter is atomic.
 */
final class PrebleE2Policy implements RoutingPolicy {
  static final String NAME = "preble-e2";
  static final int WARMUP_PER_REPLICA = 50;
  static final int DEFAULT_WINDOW_SECONDS = 180;
  static final double DEFAULT_REBALANCE_THRESHOLD = 1.5;
  static final double DEFAULT_TPOT_MS = 150;

  private final long windowNanos;
  private final double rebalanceThreshold;
  private final double tpotMs;
  private final boolean rebalance;
  private final Cache<String, PrebleLoadWindow> windows;
  private final AtomicLong routed = new AtomicLong();

  PrebleE2Policy(Duration window, double rebalanceThreshold, double tpotMs, boolean rebalance,
      Ticker ticker) {
    this.windowNanos = window.toNanos();
    this.rebalanceThreshold = rebalanceThreshold;
    this.tpotMs = tpotMs;
    this.rebalance = rebalance;
    this.windows = Caffeine.newBuilder().ticker(ticker::read).executor(Runnable::run)
        .expireAfterAccess(window).maximumSize(65_536).build();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    List<CandidateView> candidates = context.candidates();
    int n = candidates.size();
    if (n == 0) {
      return context.noCandidates();
    }
    long now = context.nowNanos();
    int promptTokens = context.request().promptTokens();
    int planned = context.request().plannedOutputTokens();
    int cached = 0;
    for (CandidateView c : candidates) {
      cached = Math.max(cached, c.matchedTokens());
    }
    double[] load = new double[n];
    int lightest = 0;
    for (int i = 0; i < n; i++) {
      load[i] = loadCost(candidates.get(i), now, planned);
      lightest = load[i] < load[lightest] ? i : lightest;
    }
    int chosen = lightest;
    if (cached > 0 && promptTokens - cached < cached) {
      chosen = -1;
      for (int i = 0; i < n; i++) {
        if (candidates.get(i).matchedTokens() == cached && (chosen < 0 || load[i] < load[chosen])) {
          chosen = i;
        }
      }
      if (rebalance && routed.get() >= (long) WARMUP_PER_REPLICA * n && chosen != lightest
          && load[chosen] >= rebalanceThreshold * load[lightest]) {
        CandidateView h = candidates.get(chosen);
        double w = prefillMillis(h, promptTokens) + planned * tpot(h);
        if (load[chosen] - w >= load[lightest] + w) {
          chosen = lightest;
        }
      }
    }
    CandidateView c = candidates.get(chosen);
    windows.get(c.replicaId(), id -> new PrebleLoadWindow(windowNanos))
        .add(now, prefillMillis(c, promptTokens), planned);
    routed.incrementAndGet();
    return RoutingDecision.routed(c, CostBreakdown.empty());
  }

  /** Preble's per-GPU load cost, in milliseconds. */
  double loadCost(CandidateView c, long nowNanos, int requestOutputTokens) {
    PrebleLoadWindow w = windows.getIfPresent(c.replicaId());
    double prefill = w == null ? 0 : w.prefillMillis(nowNanos);
    double meanOutput = w == null ? Double.NaN : w.meanOutputTokens(nowNanos);
    double output = Double.isNaN(meanOutput) ? requestOutputTokens : meanOutput;
    return prefill + c.inFlightRequests() * output * tpot(c);
  }

  private double tpot(CandidateView c) {
    return c.snapshot().decodeStepMillis().orElse(tpotMs);
  }

  private static double prefillMillis(CandidateView c, int promptTokens) {
    return c.prefillOverheadMillis()
        + Math.max(0, promptTokens - c.matchedTokens()) * c.prefillMillisPerToken();
  }
}
