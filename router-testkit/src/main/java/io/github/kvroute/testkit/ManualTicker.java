package io.github.kvroute.testkit;

import io.github.kvroute.api.Ticker;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Ticker} moved by hand, so tests run in virtual time: the router, its policies' expiring
 * state and the contract tests all read it, and nothing depends on the wall clock.
 *
 * <p>Thread-safety: thread-safe (one atomic counter).
 */
public final class ManualTicker implements Ticker {
  private final AtomicLong nanos;

  /** Starts at 0. */
  public ManualTicker() {
    this(0);
  }

  public ManualTicker(long startNanos) {
    this.nanos = new AtomicLong(startNanos);
  }

  @Override
  public long read() {
    return nanos.get();
  }

  /**
   * Moves time forward.
   *
   * @throws IllegalArgumentException if {@code millis} is negative
   */
  public void advanceMillis(long millis) {
    if (millis < 0) {
      throw new IllegalArgumentException("millis: " + millis + " (expected: >= 0)");
    }
    nanos.addAndGet(millis * 1_000_000L);
  }
}
