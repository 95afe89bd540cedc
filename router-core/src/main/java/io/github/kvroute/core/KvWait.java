package io.github.kvroute.core;

import com.google.common.math.LongMath;
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
 * <p><b>At a router alone, whole and early.</b> With no peers ({@code peers} 0: none configured
 * and none measured) the wait counts from the first report of full KV, before it shows anyone
 * waiting, and it counts everything ahead: the requests the report shows waiting need KV first
 * (each taken to need what this one needs, the only size the router knows), and the free KV is the
 * report's less the KV this router's sends since add ({@link LedgerReading#sinceKvTokens}: each
 * prompt's unmatched part and its output, so a prefix several sends share counts once), below zero
 * when they add more than it showed free. Past capacity this is what makes requests late: on
 * {@code multi-turn-chat} at three times its rate nearly every miss waited about a second for KV on
 * a replica that the request's own missing KV over a free count clamped at zero priced at 60-200 ms,
 * so admission let it in and ranking preferred the replica whose wait it most underestimated. An
 * earlier version that counted before a queue forms deducted the sends' whole prompts: every hit on
 * a tenant's home counted the shared prefix again, the home looked full, and tenants left it
 * ({@code multi-tenant} lost 5%, and with the waiting requests added 65%).
 *
 * <p><b>With peers, late and own.</b> There the freed rate is this router's own times
 * {@code 1 + peers}, which undercounts a replica whose tenants arrive mostly through other routers,
 * and a report a second old says little of a KV that turns over in tens of milliseconds: the wait
 * counts only once a report shows requests waiting, and only the request's own missing KV over the
 * clamped free count (whole, three-router {@code multi-tenant} lost 14%).
 *
 * <p>Measured when it was introduced, counting only once a queue formed ({@code kvroute-sim
 * compare}, default {@code vllm} telemetry and sweep, hybrid-cost {@code capacity_rps}, means of
 * seeds 1-3; without / with): multi-tenant 81.68 / 87.73, stale-telemetry 130.87 / 132.84 (at
 * {@code --telemetry-delay-ms 1000}: 117.30 / 121.28), overload 33.98 / 35.02, multi-turn-chat
 * 21.60 / 21.74, rag-long-docs 8.46 / 8.49, hot-prefix 66.52 / 66.57, mixed-sizes 41.34 / 41.06
 * (with {@code --routers 3 --telemetry-delay-ms 1000}: 34.99 / 34.97).
 * docs/cost-model.md ("Waiting for KV", "Past capacity: deadlines") has the measurements of the
 * whole wait at a router alone and of the variants not kept.
 *
 * <p>Thread-safety: stateless.
 */
final class KvWait {
  private KvWait() {}

  /**
   * The wait in milliseconds; 0 when the request fits, no finished send has been seen yet, or
   * (with peers) nothing is waiting there; the rate is {@code books}' freed tokens per second.
   * {@code sharedTokens} are the cached tokens it shares with requests running there: the rest of
   * a cache hit comes out of the free KV too ({@link PinnedPrefixes}).
   * {@code freeKvTokens} is the report's free KV less this router's sends since (whole prompts and
   * outputs), at least 0; {@code openKvTokens} the report's free KV less the KV those sends add
   * (see {@link LedgerReading#sinceKvTokens}), below zero when they add more than it showed free.
   */
  static double millis(Request request, int sharedTokens, long freeKvTokens, long openKvTokens,
      ReplicaSnapshot snap, LedgerReading books) {
    boolean whole = books.peers <= 0;
    long need = (long) request.promptTokens() - sharedTokens + request.plannedOutputTokens();
    // reported counts are host input: sums saturate rather than wrap
    long deficit = LongMath.saturatedSubtract(need, whole ? openKvTokens : freeKvTokens);
    if (deficit <= 0) {
      return 0; // the usual case: the freed rate (an exponential to compute) is not needed
    }
    double freedTokensPerSecond = books.freedTokensPerSecond();
    if (freedTokensPerSecond <= 0 || !whole && snap.waitingRequests().orElse(1) <= 0) {
      return 0;
    }
    if (whole) {
      long ahead = Math.max(0, snap.waitingRequests().orElse(0));
      deficit = LongMath.saturatedAdd(deficit, LongMath.saturatedMultiply(ahead, need));
    }
    return 1000.0 * deficit / freedTokensPerSecond;
  }
}
