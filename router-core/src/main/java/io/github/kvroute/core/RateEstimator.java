package io.github.kvroute.core;

/**
 * An event rate with exponential forgetting: each event adds {@code 1/tau} and the rate decays by
 * {@code e^(-dt/tau)}, so a steady stream of {@code λ} events per second reads {@code λ}.
 *
 * <p>Not thread-safe: guarded by its owner.
 */
final class RateEstimator {
  private final double tauNanos;
  private double rate;
  private long lastNanos;
  private boolean started;

  RateEstimator(double tauSeconds) {
    this.tauNanos = tauSeconds * 1e9;
  }

  void record(long nowNanos) {
    record(nowNanos, 1.0);
  }

  /** An event worth {@code weight} (say, tokens): the rate reads weight per second. */
  void record(long nowNanos, double weight) {
    decayTo(nowNanos);
    rate += weight * 1e9 / tauNanos;
  }

  double perSecond(long nowNanos) {
    if (!started) {
      return 0;
    }
    return decayed(rate, lastNanos, nowNanos, tauNanos);
  }

  /**
   * The rate as of {@link #lastNanos()}, 0 before the first event: with it, {@link #decayed} gives
   * {@link #perSecond} later, for a reader that copies the state now and may need the rate after.
   */
  double rateAtLast() {
    return started ? rate : 0;
  }

  long lastNanos() {
    return lastNanos;
  }

  double tauNanos() {
    return tauNanos;
  }

  /** A rate of {@code rate} at {@code lastNanos}, decayed to {@code nowNanos}. */
  static double decayed(double rate, long lastNanos, long nowNanos, double tauNanos) {
    if (rate == 0) {
      // exact: the decay factor is finite and in (0, 1], so the product is this zero; and every
      // decision reads every candidate's rate, most of them never routed to (no exp for those)
      return rate;
    }
    long dt = Math.max(0, nowNanos - lastNanos);
    return rate * Math.exp(-dt / tauNanos);
  }

  private void decayTo(long nowNanos) {
    if (started) {
      long dt = Math.max(0, nowNanos - lastNanos);
      rate *= Math.exp(-dt / tauNanos);
    }
    started = true;
    lastNanos = Math.max(lastNanos, nowNanos);
  }
}
