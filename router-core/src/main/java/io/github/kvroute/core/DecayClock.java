package io.github.kvroute.core;

/**
 * One decision's clock for the decay of the own send rates ({@link DispatchLedger}'s 10-second
 * {@link RateEstimator}): the time, its epoch and the decay factor from the epoch to it, computed
 * once per decision and shared by every candidate's {@link LedgerReading}.
 *
 * <h2>Design notes</h2>
 * A rate {@code r} last updated at {@code t} reads {@code r·e^{-(now-t)/τ}} at {@code now}: an
 * exponential per candidate per decision (a sixteenth of a 64-replica decision, measured by taking it
 * out). Split at an epoch {@code E} before both times, it is {@code r·e^{(t-E)/τ}} (known once per
 * send, kept in the reading) times {@code e^{-(now-E)/τ}} (this clock's factor, once per decision):
 * one multiplication per candidate. Epochs are multiples of {@link #SPAN_NANOS}, {@value
 * #SPAN_TAUS} time constants, so that neither exponent exceeds {@value #SPAN_TAUS} in magnitude: the
 * arguments then lose at most about {@code 32 x 2^-53} absolutely to rounding, and the product differs
 * from the single exponential by a few parts in {@code 10^15} of the rate (bounded in
 * {@code LedgerReadingProperties}); a rate whose send lies in an earlier epoch is carried over to the
 * current one once, by one exponential, when a reading first meets the new epoch.
 *
 * <p>Not thread-safe: one per {@link DecisionContext}, set at the start of each decision.
 */
final class DecayClock {
  /** The own send rates' time constant, in nanoseconds (their {@link RateEstimator}'s 10 s). */
  static final double OWN_TAU_NANOS = 10.0 * 1e9;
  /** How many time constants an epoch spans. */
  static final int SPAN_TAUS = 32;
  /** An epoch's length: {@value #SPAN_TAUS} time constants. */
  static final long SPAN_NANOS = (long) (SPAN_TAUS * OWN_TAU_NANOS);

  /** The time this clock was set to, and its epoch; {@link Long#MIN_VALUE} before. */
  long nowNanos = Long.MIN_VALUE;
  long epochNanos = Long.MIN_VALUE;
  /** {@code e^{-(now - epoch)/τ}}. */
  double factor;

  /** Sets the clock to {@code now}: one exponential. */
  void at(long now) {
    if (now == nowNanos) {
      return;
    }
    nowNanos = now;
    epochNanos = epochOf(now);
    factor = Math.exp(-(now - epochNanos) / OWN_TAU_NANOS);
  }

  /** The epoch {@code nanos} lies in: the greatest multiple of {@link #SPAN_NANOS} not after it. */
  static long epochOf(long nanos) {
    return Math.floorDiv(nanos, SPAN_NANOS) * SPAN_NANOS;
  }
}
