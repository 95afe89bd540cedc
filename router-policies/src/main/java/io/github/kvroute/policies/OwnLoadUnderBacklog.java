package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RoutingContext;
import java.util.List;

/**
 * Where a request with a TTFT budget goes when several routers share a backlogged fleet on traffic
 * that shares no prefixes: to the candidate with the fewest prompt tokens of this router's own
 * requests in flight ({@link CandidateView#inFlightPromptTokens()}), ties to the better ranked.
 *
 * <h2>Design notes</h2>
 * Ranked by the least predicted TTFT, every router picks the replica its report shows shortest,
 * and all of them read the same report, up to a second late: they send there together, and that
 * replica's estimate is the one most likely too low. Admission then lets through requests it
 * predicts in time that are not: on {@code overload} with three routers (seed 2, at its own rate)
 * hybrid-cost's admitted requests waited 955 ms longer than predicted on average, against 428 ms
 * under Dynamo's rule, which on unique prompts ranks by the router's own active blocks. Those
 * books are exact, no report delays them, and each router's differ from the others', so the
 * routers spread apart. Below saturation the reports are what tells a replica's decode batch from
 * another's, which a 300 ms objective needs: ranked by its own books at every load,
 * {@code mixed-sizes} with deadlines fell from 50.0 to 36.7 req/s (seeds 1-6). So the rule holds
 * only while every candidate this router may choose waits over the saturation threshold
 * ({@code saturation_ms}, the same backlog {@link PastSaturation} piles requests without a budget
 * under), which a fleet whose admission keeps queues within 300 ms budgets rarely shows
 * ({@code mixed-sizes} with deadlines: identical runs), and {@code overload} (half its requests
 * with 1 s budgets, a fifth with 4 s) shows most of the time. Measured in docs/cost-model.md
 * ("Unique traffic with several routers").
 *
 * <p>A request placed by this rule is not noted in the policy's {@link HomeBook}, which decides
 * whether traffic shares prefixes: under a backlog that lasts while every request carries a
 * budget, a change to traffic that shares prefixes is noticed once the backlog clears (the rule
 * suits either traffic meanwhile). Noted, the book's placements moved {@code overload}'s capacity
 * from 35.00 to 34.86 req/s (se 0.10, three routers, seeds 1-10).
 *
 * <p>Thread-safety: stateless.
 */
final class OwnLoadUnderBacklog {
  private OwnLoadUnderBacklog() {}

  /**
   * Whether the request carries a budget and every candidate the policy may choose (the fresh ones
   * when {@code onlyFresh}) waits over {@code thresholdMillis} by its calibrated queue; false when
   * the threshold is 0 (off) or no candidate may be chosen.
   */
  static boolean applies(RoutingContext context, boolean onlyFresh, double thresholdMillis) {
    if (thresholdMillis <= 0 || context.request().ttftBudget().isEmpty()) {
      return false;
    }
    List<CandidateView> candidates = context.candidates();
    boolean any = false;
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      if (onlyFresh && c.telemetryStale()) {
        continue;
      }
      if (!(c.calibratedQueueMillis() > thresholdMillis)) {
        return false;
      }
      any = true;
    }
    return any;
  }

  /** The fewest own in-flight prompt tokens over the candidates the policy may choose. */
  static long leastTokens(List<CandidateView> candidates, boolean onlyFresh) {
    long least = Long.MAX_VALUE;
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      if (!(onlyFresh && c.telemetryStale())) {
        least = Math.min(least, c.inFlightPromptTokens());
      }
    }
    return least;
  }
}
