package io.github.kvroute.policies;

import io.github.kvroute.api.Ticker;
import java.util.concurrent.atomic.AtomicLong;

/** Test time, moved by hand. Thread-safe. */
final class ManualTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong();

  @Override
  public long read() {
    return nanos.get();
  }

  void advanceMillis(long millis) {
    nanos.addAndGet(millis * 1_000_000L);
  }

  void advanceSeconds(long seconds) {
    nanos.addAndGet(seconds * 1_000_000_000L);
  }
}
