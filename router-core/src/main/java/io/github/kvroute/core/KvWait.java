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
 * <p>Only a replica whose report shows requests waiting counts as held up by its KV. The used KV a
 * stock vLLM reports is what running requests hold (a freed block keeps its prefix in the free
 * queue until reused), so a report of full blocks does mean a request may wait; but before a queue
 * forms that wait is often short, and pricing it moved requests off the replicas that hold their
 * prefixes: without the condition multi-tenant lost 5%, and for requests with a deadline alone three
 * routers lost multi-tenant by 23% while one router gained 7-8% on multi-turn-chat and rag-long-docs
 * (docs/cost-model.md, "Past capacity: deadlines", has the measurements).
 *
 * <p>Measured ({@code kvroute-sim compare}, default {@code vllm} telemetry and sweep, hybrid-cost
 * {@code capacity_rps}, means of seeds 1-3; without / with): multi-tenant 81.68 / 87.73,
 * stale-telemetry 130.87 / 132.84 (at {@code --telemetry-delay-ms 1000}: 117.30 / 121.28), overload
 * 33.98 / 35.02, multi-turn-chat 21.60 / 21.74, rag-long-docs 8.46 / 8.49, hot-prefix 66.52 / 66.57,
 * mixed-sizes 41.34 / 41.06 (with {@code --routers 3 --telemetry-delay-ms 1000}: 34.99 / 34.97).
 * Without the waiting-count condition it lost multi-tenant (79.40) and mixed-sizes (40.51).
 *
 * <p>Thread-safety: stateless.
 */
final class KvWait {
  private KvWait() {}

  /**
   * The wait in milliseconds; 0 when the request fits, nothing is waiting there, or no finished send
   * has been seen yet; the rate is {@code books}' freed tokens per second.
   */
  static double millis(Request request, int matchedTokens, long freeKvTokens, ReplicaSnapshot snap,
      LedgerReading books) {
    long deficit = (long) request.promptTokens() - matchedTokens + request.plannedOutputTokens()
        - freeKvTokens;
    if (deficit <= 0) {
      return 0; // the usual case: the freed rate (an exponential to compute) is not needed
    }
    double freedTokensPerSecond = books.freedTokensPerSecond();
    if (freedTokensPerSecond <= 0 || snap.waitingRequests().orElse(1) <= 0) {
      return 0;
    }
    return 1000.0 * deficit / freedTokensPerSecond;
  }
}
