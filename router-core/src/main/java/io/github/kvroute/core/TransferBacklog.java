package io.github.kvroute.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * This router's KV moves still ahead on each (prefill, decode) link: the pairs it routed whose KV has
 * not reached the decode replica yet (no first token), priced at their own move time. A link moves one
 * prompt's KV after another, so a new pair on a busy link waits behind them; pricing only the
 * bandwidth would send every request down the link that looks fastest until its queue, not its speed,
 * decides the transfer. The backlog is counted in full, as if every pending move started now: an
 * upper bound, since moves whose prefill is still running start later.
 *
 * <p>Bounded by the fleet: one counter per link that has carried a pair (at most slots squared).
 *
 * <p>Thread-safety: thread-safe (a concurrent map of atomic counters).
 */
final class TransferBacklog {
  /** Microseconds of moves pending per link, keyed by {@link #key}. */
  private final ConcurrentHashMap<Long, AtomicLong> micros = new ConcurrentHashMap<>();

  static long key(int prefillSlot, int decodeSlot) {
    return ((long) prefillSlot << 32) | (decodeSlot & 0xffffffffL);
  }

  void add(long link, long moveMicros) {
    micros.computeIfAbsent(link, k -> new AtomicLong()).addAndGet(moveMicros);
  }

  void remove(long link, long moveMicros) {
    AtomicLong c = micros.get(link);
    if (c != null) {
      c.addAndGet(-moveMicros);
    }
  }

  /** Milliseconds of moves ahead on the link from {@code prefillSlot} to {@code decodeSlot}. */
  double millis(int prefillSlot, int decodeSlot) {
    AtomicLong c = micros.get(key(prefillSlot, decodeSlot));
    return c == null ? 0 : Math.max(0, c.get()) / 1000.0;
  }
}
