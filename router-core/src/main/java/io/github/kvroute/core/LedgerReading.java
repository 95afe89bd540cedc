package io.github.kvroute.core;

/**
 * What a view needs of a replica's {@link DispatchLedger}, copied out by
 * {@link DispatchLedger#read} (without its lock unless writers keep it retrying; see its notes).
 *
 * <p>Not thread-safe: one per view or reader, filled by one read at a time.
 */
final class LedgerReading {
  int inFlightRequests;
  long inFlightTokens;
  long inFlightPromptTokens;
  int sinceCount;
  long sinceOutstandingTokens;
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
}
