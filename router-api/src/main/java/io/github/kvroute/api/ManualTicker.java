package io.github.kvroute.api;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Ticker} moved by hand, so tests and demos run in virtual time: the router, its policies'
 * expiring state and the contract tests all read it, and nothing depends on the wall clock.
 *
 * <p>Time only moves forward: every {@code advance} method rejects a negative step.
 *
 * <p>Thread-safety: thread-safe (one atomic counter).
 */
public final class ManualTicker implements Ticker {
  private final AtomicLong nanos;

  /** Starts at 0. */
  public ManualTicker() {
    this(0);
  }

  /**
   * Starts at {@code startNanos}.
   *
   * @param startNanos the first reading, in nanoseconds
   */
  public ManualTicker(long startNanos) {
    this.nanos = new AtomicLong(startNanos);
  }

  @Override
  public long read() {
    return nanos.get();
  }

  /**
   * Moves time forward by {@code delta} nanoseconds.
   *
   * @param delta nanoseconds; {@code >= 0}
   * @throws IllegalArgumentException if {@code delta} is negative
   */
  public void advanceNanos(long delta) {
    Checks.atLeast(delta, 0L, "delta");
    nanos.addAndGet(delta);
  }

  /**
   * Moves time forward by {@code millis} milliseconds.
   *
   * @param millis milliseconds; {@code >= 0}
   * @throws IllegalArgumentException if {@code millis} is negative
   */
  public void advanceMillis(long millis) {
    Checks.atLeast(millis, 0L, "millis");
    nanos.addAndGet(Math.multiplyExact(millis, 1_000_000L));
  }

  /**
   * Moves time forward by {@code seconds} seconds.
   *
   * @param seconds seconds; {@code >= 0}
   * @throws IllegalArgumentException if {@code seconds} is negative
   */
  public void advanceSeconds(long seconds) {
    Checks.atLeast(seconds, 0L, "seconds");
    nanos.addAndGet(Math.multiplyExact(seconds, 1_000_000_000L));
  }
}
