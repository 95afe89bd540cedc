package io.github.kvroute.core;

/**
 * What a view needs of a replica's {@link DispatchLedger}, copied out by
 * {@link DispatchLedger#read} (without its lock unless writers keep it retrying; see its notes).
 *
 * <h2>Design notes</h2>
 * Every decision reads the books of every candidate, while a decision changes those of one replica
 * (its dispatch, then later its outcome). So a reading remembers which books it copied and at which
 * of their versions: when the version has not moved, the next read copies nothing and only derives
 * again what depends on the time ({@link #at}): the replayed queue drained to now, the pending-work
 * estimate, the own send rate decayed to now. Those are derived from the copied state by the same
 * formulas the ledger uses, in the same order, so a reading kept by its version gives the same bits
 * as a fresh copy would. (That reading a candidate's books touched its ledger, its version, its
 * rate estimators and its pending work, one cache line or more each, for every candidate of every
 * decision; a kept reading touches the version alone.) A decision's views decay the own send rate
 * through the decision's {@link DecayClock}, one multiplication instead of an exponential each: that
 * value differs from the exponential's in the last bits ({@link DecayClock}'s notes bound by how
 * much), and a kept reading and a fresh copy read through the same clock agree bit for bit.
 *
 * <p>Not thread-safe: one per view or reader, filled by one read at a time. {@link #books} and
 * {@link #version} identify the copy; the ledger's own fields are never referenced from here.
 */
final class LedgerReading {
  /** The ledger copied last, or null; with {@link #version}, whether a copy can be kept. */
  DispatchLedger books;
  /** That ledger's version lock (final there), null before a copy. */
  SeqLock booksVersion;
  /** That ledger's (even) version when it was copied; -1 before a copy. */
  long version = -1;

  int inFlightRequests;
  long inFlightTokens;
  long inFlightPromptTokens;
  int sinceCount;
  long sinceOutstandingTokens;
  /**
   * The KV this router's sends since the report take there: each prompt's part the index did not
   * match, its output, and its matched part when no other send of this router held that prefix
   * there ({@link PinnedPrefixes}; a prefix several sends share is held once).
   */
  long sinceKvTokens;
  /** KV tokens reserved here by disaggregated attempts whose KV is still on its way. */
  long decodeReservedTokens;
  /** The queue estimate: {@link #replayQueueMillis}, or with first tokens the pending-work one. */
  double queueMillis;
  /** The report replayed with this router's sends since (what the estimate is without first tokens). */
  double replayQueueMillis;
  double ownRatePerSecond;
  double peers;
  /**
   * What {@link #freedTokensPerSecond()} is computed from, copied with the rest: the freed-tokens
   * rate as of its last event, that event's time, the rate's memory, the send weight and the time
   * of the read.
   */
  double freedRate;
  long freedLastNanos;
  double freedTauNanos;
  double sendWeight;
  long readAtNanos;
  /** {@link #freedTokensPerSecond()} once computed for this read; NaN before. */
  double freedPerSecond;

  // the copied state the time-dependent values are derived from (see the class notes)
  /** The replay's queue after its latest send, and that send's time. */
  double queueAtLast;
  long queueLastNanos;
  /** Whether the host reports first tokens there: then {@link #queueMillis} is the pending work. */
  boolean streaming;
  /** {@link PendingPrefills}' state and the report's time; copied only while {@link #streaming}. */
  double pendingUnseenBaseMillis;
  double pendingWorkMillis;
  long pendingProgressSinceNanos;
  double pendingSinceWorkMillis;
  long baseAtNanos;
  /** The own send rate as of its last send (0 before one), that send's time, its memory. */
  double ownRate;
  long ownLastNanos;
  double ownTauNanos;
  /**
   * {@link #ownRate} carried back to the epoch {@link #ownEpochNanos} ({@link DecayClock}'s notes):
   * {@code rate x e^{(last - epoch)/τ}}; the epoch is {@link Long#MIN_VALUE} until one is needed.
   */
  double ownScaled;
  long ownEpochNanos = Long.MIN_VALUE;

  /**
   * A copy of {@code ledger} (whose version lock is {@code lock}) at its {@code version} is
   * complete: remembers them (the references are
   * stored only when it changes, as {@link MutableView}'s notes explain) and derives the values of
   * {@code nowNanos}.
   */
  void copied(DispatchLedger ledger, SeqLock lock, long version, long nowNanos,
      DecayClock clock) {
    if (books != ledger) {
      books = ledger;
      booksVersion = lock;
    }
    this.version = version;
    ownEpochNanos = Long.MIN_VALUE;
    at(nowNanos, clock);
  }

  /**
   * Derives from the copied state what depends on the time, as of {@code nowNanos}; the own send
   * rate through {@code clock} (set to {@code nowNanos}) when one is given, else by its own
   * exponential as the ledger computes it.
   */
  void at(long nowNanos, DecayClock clock) {
    replayQueueMillis = Math.max(0, queueAtLast - millis(nowNanos - queueLastNanos));
    queueMillis = streaming
        ? PendingPrefills.queueMillis(pendingUnseenBaseMillis, pendingWorkMillis,
            pendingProgressSinceNanos, pendingSinceWorkMillis, nowNanos, baseAtNanos, sendWeight)
        : replayQueueMillis;
    ownRatePerSecond = clock == null || ownRate == 0 || nowNanos <= ownLastNanos
        || ownTauNanos != DecayClock.OWN_TAU_NANOS
        ? RateEstimator.decayed(ownRate, ownLastNanos, nowNanos, ownTauNanos)
        : ownRateThrough(clock);
    readAtNanos = nowNanos;
    freedPerSecond = Double.NaN;
  }

  /**
   * The own rate decayed to {@code clock}'s time, its last send before it: the rate carried to the
   * clock's epoch (once per epoch and copy) times the clock's factor.
   */
  private double ownRateThrough(DecayClock clock) {
    if (ownEpochNanos != clock.epochNanos) {
      ownScaled = ownRate * Math.exp((ownLastNanos - clock.epochNanos) / DecayClock.OWN_TAU_NANOS);
      ownEpochNanos = clock.epochNanos;
    }
    return ownScaled * clock.factor;
  }

  /**
   * KV tokens freed per second by finishing sends, this router's and (scaled) its peers', as of the
   * read. Computed on first use (its decay is an exponential per candidate, and most decisions
   * never ask: only a request that does not fit in a replica's free KV, or a decode replica's
   * readiness, does), from the state copied by the read: the same value the read would have given.
   */
  double freedTokensPerSecond() {
    double f = freedPerSecond;
    if (Double.isNaN(f)) {
      f = RateEstimator.decayed(freedRate, freedLastNanos, readAtNanos, freedTauNanos) * sendWeight;
      freedPerSecond = f;
    }
    return f;
  }

  /** The ledger's own conversion (a negative span counts 0). */
  private static double millis(long nanos) {
    return Math.max(0, nanos) / 1e6;
  }
}
