package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

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

  public static BreakerConfig defaults() {
    return DEFAULTS;
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  /** Outcomes in the sliding count window. Default 20. */
  public int windowSize() {
    return windowSize;
  }

  /** Outcomes needed in the window before the rate can open the breaker. Default 10. */
  public int minimumCalls() {
    return minimumCalls;
  }

  /** Failure fraction of the window that opens the breaker. Default 0.5. */
  public double failureRateThreshold() {
    return failureRateThreshold;
  }

  /** Failures in a row that open the breaker regardless of the rate. Default 5. */
  public int consecutiveFailures() {
    return consecutiveFailures;
  }

  /** Minimum time open before probing. Default 30 s. */
  public Duration openDuration() {
    return openDuration;
  }

  /** Probe requests allowed in flight while half-open; this many successes close it. Default 3. */
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
    private final Set<String> set = new HashSet<>();

    private Builder() {}

    private void once(String option) {
      checkState(set.add(option), "%s: already set (expected: each builder option set once)", option);
    }

    public Builder windowSize(int v) {
      once("windowSize");
      checkArgument(v >= 1 && v <= 64, "windowSize: %s (expected: in [1, 64])", v);
      windowSize = v;
      return this;
    }

    public Builder minimumCalls(int v) {
      once("minimumCalls");
      checkArgument(v >= 1, "minimumCalls: %s (expected: >= 1)", v);
      minimumCalls = v;
      return this;
    }

    public Builder failureRateThreshold(double v) {
      once("failureRateThreshold");
      checkArgument(v > 0 && v <= 1, "failureRateThreshold: %s (expected: in (0, 1])", v);
      failureRateThreshold = v;
      return this;
    }

    public Builder consecutiveFailures(int v) {
      once("consecutiveFailures");
      checkArgument(v >= 1, "consecutiveFailures: %s (expected: >= 1)", v);
      consecutiveFailures = v;
      return this;
    }

    public Builder openDuration(Duration v) {
      once("openDuration");
      checkArgument(v != null && !v.isNegative(), "openDuration: %s (expected: >= 0)", v);
      openDuration = v;
      return this;
    }

    public Builder halfOpenProbes(int v) {
      once("halfOpenProbes");
      checkArgument(v >= 1, "halfOpenProbes: %s (expected: >= 1)", v);
      halfOpenProbes = v;
      return this;
    }

    /** @throws IllegalArgumentException if {@code minimumCalls > windowSize} */
    public BreakerConfig build() {
      checkArgument(minimumCalls <= windowSize, "minimumCalls: %s (expected: <= windowSize = %s)",
          minimumCalls, windowSize);
      return new BreakerConfig(this);
    }
  }
}
