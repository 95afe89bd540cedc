package io.github.kvroute.core;

import java.time.Duration;

/**
 * Duration arithmetic that cannot overflow: {@link Duration#toNanos()} and
 * {@link Duration#toMillis()} throw beyond about 292 years, and a host may pass
 * {@code Duration.ofSeconds(Long.MAX_VALUE)} to mean "forever". Milliseconds as a double keep the
 * magnitude (with less precision far out) and never throw; nanoseconds saturate at
 * {@link Long#MAX_VALUE}.
 *
 * <p>Thread-safety: stateless.
 */
final class Durations {
  private Durations() {}

  /** {@code d} in milliseconds, never throwing. */
  static double millis(Duration d) {
    return d.getSeconds() * 1e3 + d.getNano() / 1e6;
  }

  /** {@code d} in nanoseconds, saturated to {@code [Long.MIN_VALUE, Long.MAX_VALUE]}. */
  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }
}
