package io.github.kvroute.core;

/**
 * A {@link DispatchLedger}'s queue estimate for a host that reports first tokens: which of this
 * router's sends still wait for their prefill, and how much work they and the report's unseen share
 * leave the replica.
 *
 * <h2>Design notes</h2>
 * Once the host reports first tokens ({@link DispatchLedger#firstToken}), the router knows exactly
 * which of its sends still wait for their prefill, and the estimate becomes: the report's
 * <em>unseen</em> share (its queue times the waiting requests that are not this router's pending
 * sends, over all waiting), drained since the report; plus this router's pending prefill work, less
 * the time since the latest first token (what the replica has done on the oldest); plus the peers'
 * sends in step with this router's since the report ({@code peers} times their work). The replay
 * cannot be used with first tokens: it drains a send's work by elapsed time <em>and</em> again when
 * its first token drops it, so a replica with a backlog looks idle as soon as its first answer
 * streams (two sends of 100 ms at 0, first token of one at 100 ms: the replay says 0, the replica
 * still has 100 ms to do). A stock vLLM report has only a waiting count, counted at the fleet's mean
 * prefill work; for this router's own traffic the pending work is exact and per request. Measured
 * ({@code kvroute-sim compare}, default {@code vllm} telemetry and sweep, hybrid-cost
 * {@code capacity_rps}, means of seeds 1-3; replay / pending work): mixed-sizes 24.19 / 41.34,
 * hot-prefix 64.65 / 66.52, multi-turn-chat 20.25 / 21.60, stale-telemetry 126.2 / 130.9, overload
 * 32.62 / 33.98, multi-tenant 81.21 / 81.68, rag-long-docs 8.51 / 8.46; stale-telemetry with
 * {@code --telemetry-delay-ms 1000} 98.05 / 117.30; mixed-sizes with {@code --routers 3
 * --telemetry-delay-ms 1000} 26.94 / 34.99. The replay stays the estimate for hosts that do not
 * stream. A send made while every earlier one had its first token ({@link Lease#dispatchedIdle})
 * found no prefill of this router's ahead of it: its TTFT is its own prefill plus a decode step, the
 * clean sample the prefill calibration needs when the engine does not report queue times.
 *
 * <p>Not thread-safe: owned by one {@link DispatchLedger}, written under its lock; its optimistic
 * read computes {@link #queueMillis} without the lock and discards the result if a writer ran.
 */
final class PendingPrefills {
  /** In-flight sends whose first token the host has not reported yet. */
  private int prefillsPending;
  /** Prefill work of the in-flight sends without a first token yet. */
  private double pendingWorkMillis;
  /** The part of {@link #pendingWorkMillis} sent after the last report. */
  private double pendingSinceWorkMillis;
  /** Sends after the last report without a first token yet. */
  private int pendingSinceCount;
  /** Since when the replica has been working on the oldest pending send (a first token or an idle send). */
  private long progressSinceNanos;
  /** The reported queue that is not this router's pending sends, as of the last report. */
  private double unseenBaseMillis;

  /**
   * {@code lease} was sent and waits for its prefill.
   *
   * @return whether every earlier send had its first token ({@link Lease#dispatchedIdle})
   */
  boolean add(Lease lease) {
    boolean idle = prefillsPending == 0;
    if (prefillsPending == 0) {
      progressSinceNanos = lease.dispatchedAtNanos;
    }
    prefillsPending++;
    pendingWorkMillis += lease.workMillis;
    pendingSinceWorkMillis += lease.workMillis;
    pendingSinceCount++;
    return idle;
  }

  /** {@code lease}'s first token came at {@code nowNanos}: the replica works on the next from now. */
  void firstToken(Lease lease, long nowNanos) {
    progressSinceNanos = Math.max(progressSinceNanos, nowNanos);
    prefillsPending--;
    leave(lease);
  }

  /** {@code lease} was released before its first token. */
  void released(Lease lease) {
    prefillsPending--;
    leave(lease);
  }

  /** A report reflects {@code lease}, sent before it was observed: it is no longer a send since. */
  void reported(Lease lease) {
    if (!lease.firstToken) {
      pendingSinceWorkMillis -= lease.workMillis;
      pendingSinceCount--;
    }
  }

  /**
   * After the sends a report reflects were {@link #reported}: the share of its queue that is not
   * this router's own pending sends, from its waiting-request count ({@code -1} when it has none).
   */
  void rebase(double reportedQueueMillis, int waiting) {
    int ownWaiting = prefillsPending - pendingSinceCount;
    unseenBaseMillis = waiting < 0 ? reportedQueueMillis
        : waiting == 0 ? 0 : reportedQueueMillis * Math.max(0, waiting - ownWaiting) / waiting;
  }

  /** Forgets the report's share and the sends since it (the replica restarted or stopped). */
  void reset() {
    pendingSinceWorkMillis = 0;
    pendingSinceCount = 0;
    unseenBaseMillis = 0;
  }

  /** A send leaves the pending prefills (first token, or released before one). */
  private void leave(Lease lease) {
    pendingWorkMillis = Math.max(0, pendingWorkMillis - lease.workMillis);
    if (lease.sinceSnapshot()) {
      pendingSinceWorkMillis = Math.max(0, pendingSinceWorkMillis - lease.workMillis);
      pendingSinceCount--;
    }
    if (prefillsPending == 0) {
      pendingWorkMillis = 0;
      pendingSinceWorkMillis = 0;
    }
  }

  /**
   * The unseen share of the last report (observed at {@code baseAtNanos}) drained since, plus this
   * router's pending prefill work less what the replica has done on it since its latest first token,
   * plus the peers' sends in step with this router's since the report ({@code sendWeight - 1} times
   * their work).
   */
  double queueMillis(long nowNanos, long baseAtNanos, double sendWeight) {
    return queueMillis(unseenBaseMillis, pendingWorkMillis, progressSinceNanos,
        pendingSinceWorkMillis, nowNanos, baseAtNanos, sendWeight);
  }

  /** Copies what {@link #queueMillis} is computed from into {@code out}, for a later time. */
  void copyTo(LedgerReading out) {
    out.pendingUnseenBaseMillis = unseenBaseMillis;
    out.pendingWorkMillis = pendingWorkMillis;
    out.pendingProgressSinceNanos = progressSinceNanos;
    out.pendingSinceWorkMillis = pendingSinceWorkMillis;
  }

  /**
   * {@link #queueMillis(long, long, double)} from copied state: the one formula both the ledger
   * and a reading it filled earlier use, so that both give the same bits.
   */
  static double queueMillis(double unseenBaseMillis, double pendingWorkMillis,
      long progressSinceNanos, double pendingSinceWorkMillis, long nowNanos, long baseAtNanos,
      double sendWeight) {
    double unseen = Math.max(0, unseenBaseMillis - millis(nowNanos - baseAtNanos));
    double own = Math.max(0, pendingWorkMillis - millis(nowNanos - progressSinceNanos));
    return unseen + own + (sendWeight - 1.0) * pendingSinceWorkMillis;
  }

  private static double millis(long nanos) {
    return Math.max(0, nanos) / 1e6;
  }
}
