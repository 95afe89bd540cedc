package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;

/**
 * When a replica's circuit breaker opens and how it recovers (a resilience4j-style state machine:
 * CLOSED -> OPEN on a failure rate over a count window or on consecutive failures; OPEN -> HALF_OPEN
 * after a wait <em>and</em> a fresh READY report, so a cold restart does not flap; HALF_OPEN -> CLOSED
 * after enough successful probes, back to OPEN on any failure).
 *
 * <p>Only outcomes that are evidence against the replica count (server errors, timeouts, connection
 * failures), not cancellations or client errors.
 *
 * <p>Immutable and thread-safe.
 */
public final class BreakerConfig {
  private static final BreakerConfig DEFAULTS = newBuilder().build();

  private final int windowSize;
  private final int minimumCalls;
  private final double failureRateThreshold;
  private final int consecutiveFailures;
  private final Duration openDuration;
  private final int halfOpenProbes;

  private BreakerConfig(Builder b) {
    windowSize = b.windowSize;
    minimumCalls = b.minimumCalls;
    failureRateThreshold = b.failureRateThreshold;
    consecutiveFailures = b.consecutiveFailures;
    openDuration = b.openDuration;
    halfOpenProbes = b.halfOpenProbes;
  }

  /**
   * {@return the defaults: a window of 20 outcomes, 10 before the rate counts, a 0.5 failure rate
   * or 5 failures in a row to open, 30 s open, 3 probes}
   */
  public static BreakerConfig defaults() {
    return DEFAULTS;
  }

  /**
   * {@return a builder starting from the {@linkplain #defaults() defaults}, each option settable
   * once}
   */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** {@return outcomes in the sliding count window} Default 20. */
  public int windowSize() {
    return windowSize;
  }

  /** {@return outcomes needed in the window before the rate can open the breaker} Default 10. */
  public int minimumCalls() {
    return minimumCalls;
  }

  /** {@return failure fraction of the window that opens the breaker} Default 0.5. */
  public double failureRateThreshold() {
    return failureRateThreshold;
  }

  /**
   * Failures in a row that open the breaker regardless of the rate. Default 5.
   *
   * @return the failures in a row, at least 1
   */
  public int consecutiveFailures() {
    return consecutiveFailures;
  }

  /** {@return minimum time open before probing} Default 30 s. */
  public Duration openDuration() {
    return openDuration;
  }

  /**
   * {@return probe requests allowed in flight while half-open; this many successes close it}
   * Default 3.
   */
  public int halfOpenProbes() {
    return halfOpenProbes;
  }

  /** Builds a {@link BreakerConfig}. Not thread-safe; each option may be set once. */
  public static final class Builder {
    private int windowSize = 20;
    private int minimumCalls = 10;
    private double failureRateThreshold = 0.5;
    private int consecutiveFailures = 5;
    private Duration openDuration = Duration.ofSeconds(30);
    private int halfOpenProbes = 3;
    /** This builder's options, each set once ({@link SetOnce}). */
    private enum Option {
      WINDOW_SIZE, MINIMUM_CALLS, FAILURE_RATE_THRESHOLD, CONSECUTIVE_FAILURES, OPEN_DURATION, HALF_OPEN_PROBES
    }

    private long set;

    private Builder() {}


    /**
     * Sets {@link BreakerConfig#windowSize()}; default 20.
     *
     * @param v outcomes, in {@code [1, 64]}
     * @return this builder
     */
    public Builder windowSize(int v) {
      set = SetOnce.mark(set, Option.WINDOW_SIZE);
      checkArgument(v >= 1 && v <= 64, "windowSize: %s (expected: in [1, 64])", v);
      windowSize = v;
      return this;
    }

    /**
     * Sets {@link BreakerConfig#minimumCalls()}; default 10. At build time it must not exceed the
     * window size.
     *
     * @param v outcomes; {@code >= 1}
     * @return this builder
     */
    public Builder minimumCalls(int v) {
      set = SetOnce.mark(set, Option.MINIMUM_CALLS);
      checkArgument(v >= 1, "minimumCalls: %s (expected: >= 1)", v);
      minimumCalls = v;
      return this;
    }

    /**
     * Sets {@link BreakerConfig#failureRateThreshold()}; default 0.5.
     *
     * @param v the failure fraction, in {@code (0, 1]}
     * @return this builder
     */
    public Builder failureRateThreshold(double v) {
      set = SetOnce.mark(set, Option.FAILURE_RATE_THRESHOLD);
      checkArgument(v > 0 && v <= 1, "failureRateThreshold: %s (expected: in (0, 1])", v);
      failureRateThreshold = v;
      return this;
    }

    /**
     * Sets {@link BreakerConfig#consecutiveFailures()}; default 5.
     *
     * @param v failures in a row; {@code >= 1}
     * @return this builder
     */
    public Builder consecutiveFailures(int v) {
      set = SetOnce.mark(set, Option.CONSECUTIVE_FAILURES);
      checkArgument(v >= 1, "consecutiveFailures: %s (expected: >= 1)", v);
      consecutiveFailures = v;
      return this;
    }

    /**
     * Sets {@link BreakerConfig#openDuration()}; default 30 s.
     *
     * @param v the wait; not negative
     * @return this builder
     */
    public Builder openDuration(Duration v) {
      set = SetOnce.mark(set, Option.OPEN_DURATION);
      checkArgument(v != null && !v.isNegative(), "openDuration: %s (expected: >= 0)", v);
      openDuration = v;
      return this;
    }

    /**
     * Sets {@link BreakerConfig#halfOpenProbes()}; default 3.
     *
     * @param v probes; {@code >= 1}
     * @return this builder
     */
    public Builder halfOpenProbes(int v) {
      set = SetOnce.mark(set, Option.HALF_OPEN_PROBES);
      checkArgument(v >= 1, "halfOpenProbes: %s (expected: >= 1)", v);
      halfOpenProbes = v;
      return this;
    }

    /**
     * @return the configuration
     * @throws IllegalArgumentException if {@code minimumCalls > windowSize}
     */
    public BreakerConfig build() {
      checkArgument(minimumCalls <= windowSize, "minimumCalls: %s (expected: <= windowSize = %s)",
          minimumCalls, windowSize);
      return new BreakerConfig(this);
    }
  }
}
