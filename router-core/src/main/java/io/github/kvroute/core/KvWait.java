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
 * <p><b>When it counts.</b> In general only on a replica whose report shows requests waiting. The
 * used KV a stock vLLM reports is what running requests hold (a freed block keeps its prefix in the
 * free queue until reused), so a report of full blocks does mean a request may wait; but before a
 * queue forms that wait is often short, and pricing it moved tenants off the replicas that hold
 * their prompts (multi-tenant lost 5%).
 *
 * <p>The exception is a request with a deadline ({@link Request#ttftBudget()}) at a router with no
 * peers: there the wait decides whether the request makes its deadline, admission has to see it,
 * and past capacity it is long (on {@code rag-long-docs} at twice its rate, hybrid-cost under
 * {@code --deadlines}, 481 of 1,080 admitted requests found the KV full while they waited, 1.7 s on
 * average, 90 of them after arriving at an empty queue, which a waiting count cannot show). With
 * peers the freed rate is this router's own times {@code 1 + peers}, which undercounts a replica
 * whose tenants arrive mostly through other routers; the wait it prices there is too long and
 * admission rejects what would have made it. So with peers the condition holds for every request.
 * docs/cost-model.md, "Past capacity: deadlines", has the measurements of both.
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
   * The wait in milliseconds; 0 when the request fits, no finished send has been seen yet, or
   * nothing is waiting there (unless the request has a deadline and the router no peers); the rate
   * is {@code books}' freed tokens per second.
   */
  static double millis(Request request, int matchedTokens, long freeKvTokens, ReplicaSnapshot snap,
      LedgerReading books) {
    long deficit = (long) request.promptTokens() - matchedTokens + request.plannedOutputTokens()
        - freeKvTokens;
    if (deficit <= 0) {
      return 0; // the usual case: the freed rate (an exponential to compute) is not needed
    }
    double freedTokensPerSecond = books.freedTokensPerSecond();
    if (freedTokensPerSecond <= 0 || !alwaysCounts(request, books)
        && snap.waitingRequests().orElse(1) <= 0) {
      return 0;
    }
    return 1000.0 * deficit / freedTokensPerSecond;
  }

  /** Whether the wait counts before a queue forms: a request with a deadline at a router alone. */
  private static boolean alwaysCounts(Request request, LedgerReading books) {
    return books.peers <= 0 && request.ttftBudget().isPresent();
  }
}
