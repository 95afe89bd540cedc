package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.core.RoutingContexts;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Where a router alone places a prompt that no replica holds, when its traffic reuses prefixes:
 * the placement makes that replica the prefix's holder for the requests that follow it.
 *
 * <h2>Design notes</h2>
 * A prompt of which no candidate holds {@value #HELD_SHARE} of the blocks costs nearly its whole
 * prefill wherever it goes, so its own predicted TTFT differs between replicas by their queues
 * alone. Where traffic reuses prefixes the placement decides more than that request: the prefix's
 * later requests follow it. Ranked by its own TTFT, a new document went to whichever replica's
 * queue looked shortest at that instant, often one whose cached documents drew the reused traffic
 * (hits prefill little, so such a queue drains fast), and the hits there then waited behind the
 * new prefill and the KV it holds while it decodes: on {@code rag-long-docs} with deadlines at
 * twice its rate (seed 1) hits waited 642 ms on average in the replicas' queues, and 38 ms when
 * new documents went wherever the least work was in flight.
 *
 * <p>So among the candidates whose predicted TTFT is within {@value #TTFT_TOLERANCE} times the
 * best plus {@value #TTFT_SLACK_MILLIS} ms, a new prefix goes to the one with the fewest tokens in
 * flight from this router ({@link CandidateView#inFlightTokens()}: prompt and output of its sends
 * not yet completed, the work a replica still carries, which its queue does not show yet); equal
 * counts go to the least predicted TTFT, then at random. The tolerance keeps the request's own
 * TTFT: without it (the 38 ms above) far more requests were in time past capacity, but 2-3% fewer
 * at the scenario's own rate, partly because admission then rejected new documents that another
 * replica would have served in time. With it the gain is smaller (seed 1, 2x: 0.685 to 0.717 of
 * the requests in time) and costs nothing at the scenario's rate.
 *
 * <p>Traffic reuses prefixes while at least {@value #REUSE_SHARE} of the recent requests found
 * {@value #HELD_SHARE} of their prompt held (an average over about {@value #MEMORY_REQUESTS}
 * requests, 0 at the start). On traffic that shares nothing every prompt is new and the rule would
 * be least-outstanding-tokens routing, which the TTFT ranking beats there ({@code mixed-sizes}).
 * {@value #HELD_SHARE} is also SGLang's default cache threshold: the share of a prompt below which
 * its cache-aware router stops following the cache.
 *
 * <p><b>Shedding under a backlog.</b> A new prefix costs its whole prefill, and a long one holds a
 * replica for what would serve many requests that find their prefix held. Once every candidate
 * waits more than {@value #SHED_WAIT_SHARE} of the request's remaining budget (a backlog the
 * fleet's prefill capacity does not keep up with), a new prefix whose own work (its least
 * predicted TTFT without the wait) is more than {@value #SHED_WORK_MULTIPLE} times the mean
 * request's is rejected ({@code OVERLOADED}, retry after the wait is back under the share), so
 * that the capacity goes to the requests it serves best. A request without a budget is never
 * shed: the router cannot tell that it will be late. This lives here, not in admission, because it
 * needs what only this rule knows (that the prefix is new, on traffic that reuses prefixes);
 * admission's deadline check still follows for every request. On {@code rag-long-docs} with
 * deadlines it raised the share of requests in time past capacity (seeds 1-10: 2x 0.718 to 0.730,
 * 3x 0.407 to 0.453), the capacity within its standard error; the Mooncake trace, where most
 * prompts are long, moved by under 1% (docs/cost-model.md, "Shedding a new prefix under a
 * backlog"). Option {@code shed_new_prefixes=false} turns it off.
 *
 * <p>Only for a router alone: with other routers a prefix goes to the home they agree on
 * ({@link HomeBook}). Measured in docs/cost-model.md ("A new prefix's first placement").
 *
 * <p>An explanation ({@code Router.explain}) reads the reuse share and leaves it as it was, so
 * explaining a request changes no later decision.
 *
 * <p>Thread-safety: thread-safe. The reuse share is a volatile average updated without a lock: two
 * decisions at the same instant may lose one update, which moves an average over
 * {@value #MEMORY_REQUESTS} requests by at most 1/{@value #MEMORY_REQUESTS}; the share only opens
 * or closes the rule, so a lock on every decision would buy nothing.
 */
final class NewPrefixPlacement {
  /** The share of a prompt's blocks some candidate must hold for the prompt to count as held. */
  static final double HELD_SHARE = 0.3;
  /** The rule applies while at least this share of the recent requests found theirs held. */
  static final double REUSE_SHARE = 0.1;
  /** The requests the reuse share averages over (an exponential average). */
  static final int MEMORY_REQUESTS = 256;
  /** How many times the best predicted TTFT a new prefix's replica may take. */
  static final double TTFT_TOLERANCE = 2;
  /** Plus this many milliseconds. */
  static final double TTFT_SLACK_MILLIS = 50;

  /** What {@link #place} returns when the request should be shed ({@link #backlogMillis}). */
  static final int SHED = -2;
  /** A backlog sheds new prefixes once the least wait passes this share of the request's budget. */
  static final double SHED_WAIT_SHARE = 0.1;
  /** ... and only those whose own work is more than this many times the mean request's. */
  static final double SHED_WORK_MULTIPLE = 2;

  /** Whether new prefixes are shed under a backlog. */
  private final boolean shed;
  /** The recent requests' share that found {@link #HELD_SHARE} of their prompt held. */
  private volatile double reuseShare;

  /** @param shed whether a new prefix is shed under a backlog ({@link #backlogMillis}) */
  NewPrefixPlacement(boolean shed) {
    this.shed = shed;
  }

  /**
   * Notes the request being routed and, when it brings a new prefix to traffic that reuses them,
   * chooses its replica.
   *
   * @param context the decision
   * @param deepestBlocks the most leading blocks of the prompt any candidate holds
   * @param onlyFresh whether candidates with stale telemetry are skipped
   * @return the index of the chosen candidate in {@code context.candidates()}, -1 when the rule
   *     does not apply (the policy's ranking chooses), or {@link #SHED}
   */
  int place(RoutingContext context, int deepestBlocks, boolean onlyFresh) {
    int blocks = context.request().prompt().blockCount();
    boolean held = blocks > 0 && deepestBlocks >= HELD_SHARE * blocks;
    double share = reuseShare;
    if (!RoutingContexts.isExplanation(context)) {
      reuseShare = share + ((held ? 1 : 0) - share) / MEMORY_REQUESTS;
    }
    if (held || blocks == 0 || share < REUSE_SHARE) {
      return -1;
    }
    List<CandidateView> candidates = context.candidates();
    double best = Double.POSITIVE_INFINITY;
    double leastWait = Double.POSITIVE_INFINITY;
    double leastWork = Double.POSITIVE_INFINITY;
    double meanWork = 0;
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      if (!(onlyFresh && c.telemetryStale())) {
        double ms = context.estimateMillis(c);
        double wait = c.estimatedQueueMillis();
        best = Math.min(best, ms);
        leastWait = Math.min(leastWait, wait);
        leastWork = Math.min(leastWork, ms - wait);
        // the router's running mean, the same in every view
        meanWork = c.meanRequestCostMillis();
      }
    }
    if (shed && backlogMillis(context.request(), context.nowNanos(), leastWait, leastWork,
        meanWork) > 0) {
      return SHED;
    }
    double limit = best * TTFT_TOLERANCE + TTFT_SLACK_MILLIS;
    int chosen = -1;
    long chosenTokens = 0;
    double chosenMillis = 0;
    int ties = 0;
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      if (onlyFresh && c.telemetryStale()) {
        continue;
      }
      double ms = context.estimateMillis(c);
      if (ms > limit) {
        continue;
      }
      long tokens = c.inFlightTokens();
      if (chosen < 0 || tokens < chosenTokens || (tokens == chosenTokens && ms < chosenMillis)) {
        chosen = i;
        chosenTokens = tokens;
        chosenMillis = ms;
        ties = 1;
      } else if (tokens == chosenTokens && ms == chosenMillis
          && context.random().nextInt(++ties) == 0) {
        chosen = i;
      }
    }
    return chosen;
  }

  /**
   * How far the least wait on any candidate is past {@link #SHED_WAIT_SHARE} of {@code request}'s
   * remaining budget, in milliseconds, when its own work (its least predicted TTFT without the
   * wait) is more than {@link #SHED_WORK_MULTIPLE} times {@code meanWorkMillis}; 0 or less when the
   * request is not to be shed, and always for a request without a budget.
   */
  static double backlogMillis(Request request, long nowNanos, double leastWaitMillis,
      double leastWorkMillis, double meanWorkMillis) {
    OptionalLong budget = request.remainingBudgetMillis(nowNanos);
    if (budget.isEmpty() || !(leastWorkMillis > SHED_WORK_MULTIPLE * meanWorkMillis)) {
      return 0;
    }
    return leastWaitMillis - SHED_WAIT_SHARE * budget.getAsLong();
  }

  /**
   * The rejection of a request {@link #place} shed: retry once the least wait is back under
   * {@link #SHED_WAIT_SHARE} of its budget, as far as the candidates' waits tell.
   */
  static RoutingDecision shed(RoutingContext context, boolean onlyFresh) {
    double leastWait = Double.POSITIVE_INFINITY;
    List<CandidateView> candidates = context.candidates();
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      if (!(onlyFresh && c.telemetryStale())) {
        leastWait = Math.min(leastWait, c.estimatedQueueMillis());
      }
    }
    long budget = context.request().remainingBudgetMillis(context.nowNanos()).orElse(0);
    double past = leastWait - SHED_WAIT_SHARE * budget;
    return RoutingDecision.rejected(RejectReason.OVERLOADED, String.format(Locale.ROOT,
        "a new prefix under a backlog: the least wait, %.0f ms, is over %.0f%% of the %d ms budget",
        leastWait, SHED_WAIT_SHARE * 100, budget), Duration.ofMillis((long) Math.ceil(past)));
  }
}
