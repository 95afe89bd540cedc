package io.github.kvroute.core;

import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;

/**
 * How long a request whose KV does not fit in a replica's free cache waits there before the engine
 * admits it: the missing tokens over the rate at which finishing requests free KV there.
 *
 * <h2>Design notes</h2>
 * A continuous-batching engine admits a waiting request only when its prompt's uncached part and
 * its output fit in free KV blocks, so on a full replica the wait is set by completions, not by
 * prefill work — which is all a queue built from waiting counts or pending prefills can see. On
 * {@code hot-prefix} (32k tokens of KV per replica, 6k-token shared prefix) the router predicted a
 * mean queue of 9.6 ms where requests waited 117.7 ms (hybrid-cost, seed 1, default load). The rate is
 * this router's own finished sends' tokens per second at the replica (with a 10 s memory), times
 * {@code 1 + peers} for the other routers'; the free KV is the report's, less this router's sends
 * since. The wait is the larger of this and the prefill queue (the queue ahead waits for the same
 * KV).
 *
 * <p><b>When it counts.</b> For a request without a deadline, only on a replica whose report shows
 * requests waiting: before a queue forms, a full KV often turns over within a few tens of
 * milliseconds (on {@code multi-tenant} at 2.5x its rate, seed 1, a request that arrived at no
 * queue and then found the KV full waited 56 ms on average), and pricing it for every request moved
 * tenants off the replicas that hold their prompts (multi-tenant, seeds 1-3: 115.51 to 110.07). For a
 * request with a deadline ({@link Request#ttftBudget()}) from the first report of KV held by
 * running requests, waiting count or not: there the wait decides whether the request makes its
 * deadline, admission has to see it, and past capacity it is long (on {@code rag-long-docs} at
 * twice its rate, hybrid-cost under {@code --deadlines}, 481 of 1,080 admitted requests found the
 * KV full while they waited, 1.7 s on average, 90 of them after arriving at an empty queue, which
 * a waiting count cannot show). The used KV a stock vLLM reports ({@code vllm:kv_cache_usage_perc})
 * is what running requests hold: a freed block keeps its prefix in the free queue until it is
 * reused, so cached prefixes no request uses are not in it.
 *
 * <p>Measured ({@code kvroute-sim compare}, default {@code vllm} telemetry and sweep, hybrid-cost
 * {@code capacity_rps}, means of seeds 1-3; without / with): multi-tenant 81.68 / 87.73,
 * stale-telemetry 130.87 / 132.84 (at {@code --telemetry-delay-ms 1000}: 117.30 / 121.28), overload
 * 33.98 / 35.02, multi-turn-chat 21.60 / 21.74, rag-long-docs 8.46 / 8.49, hot-prefix 66.52 / 66.57,
 * mixed-sizes 41.34 / 41.06 (with {@code --routers 3 --telemetry-delay-ms 1000}: 34.99 / 34.97).
 * Without the waiting-count condition it lost multi-tenant (79.40) and mixed-sizes (40.51). With
 * deadlines ({@code --deadlines}, seeds 1-10, hybrid-cost; waiting count always required / not for
 * a request with a deadline): multi-turn-chat 25.80 / 27.52, rag-long-docs 9.65 / 10.45, the other
 * scenarios within 1%; the policies that return no prediction of their own gain as much, since
 * admission judges them by this estimate (docs/cost-model.md, "Past capacity: deadlines").
 *
 * <p>Thread-safety: stateless.
 */
final class KvWait {
  private KvWait() {}

  /**
   * The wait in milliseconds; 0 when the request fits, no finished send has been seen yet, or
   * (for a request without a deadline) nothing is waiting there; the rate is {@code books}' freed
   * tokens per second.
   */
  static double millis(Request request, int matchedTokens, long freeKvTokens, ReplicaSnapshot snap,
      LedgerReading books) {
    long deficit = (long) request.promptTokens() - matchedTokens + request.plannedOutputTokens()
        - freeKvTokens;
    if (deficit <= 0) {
      return 0; // the usual case: the freed rate (an exponential to compute) is not needed
    }
    double freedTokensPerSecond = books.freedTokensPerSecond();
    if (freedTokensPerSecond <= 0
        || request.ttftBudget().isEmpty() && snap.waitingRequests().orElse(1) <= 0) {
      return 0;
    }
    return 1000.0 * deficit / freedTokensPerSecond;
  }
}
