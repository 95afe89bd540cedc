package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RoutingContext;
import java.util.List;

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
 * <p>Only for a router alone: with other routers a prefix goes to the home they agree on
 * ({@link HomeBook}). Measured in docs/cost-model.md ("A new prefix's first placement").
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

  /** The recent requests' share that found {@link #HELD_SHARE} of their prompt held. */
  private volatile double reuseShare;

  /**
   * Notes the request being routed and, when it brings a new prefix to traffic that reuses them,
   * chooses its replica.
   *
   * @param context the decision
   * @param deepestBlocks the most leading blocks of the prompt any candidate holds
   * @param onlyFresh whether candidates with stale telemetry are skipped
   * @return the index of the chosen candidate in {@code context.candidates()}, or -1 when the rule
   *     does not apply (the policy's ranking chooses)
   */
  int place(RoutingContext context, int deepestBlocks, boolean onlyFresh) {
    int blocks = context.request().prompt().blockCount();
    boolean held = blocks > 0 && deepestBlocks >= HELD_SHARE * blocks;
    double share = reuseShare;
    reuseShare = share + ((held ? 1 : 0) - share) / MEMORY_REQUESTS;
    if (held || blocks == 0 || share < REUSE_SHARE) {
      return -1;
    }
    List<CandidateView> candidates = context.candidates();
    double best = Double.POSITIVE_INFINITY;
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      if (!(onlyFresh && c.telemetryStale())) {
        best = Math.min(best, context.estimateMillis(c));
      }
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
}
