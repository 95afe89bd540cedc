package io.github.kvroute.core;

import io.github.kvroute.api.Ticker;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker moved by hand: tests step time explicitly and never read the wall clock. Thread-safe. */
final class ManualTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong();

  @Override
  public long read() {
    return nanos.get();
  }

  void advanceMillis(long millis) {
    nanos.addAndGet(millis * 1_000_000L);
  }

  void advanceNanos(long delta) {
    nanos.addAndGet(delta);
  }
}
