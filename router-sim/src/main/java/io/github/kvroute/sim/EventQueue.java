package io.github.kvroute.sim;

import io.github.kvroute.api.Ticker;
import java.util.PriorityQueue;

/**
 * The simulation's only clock and agenda: actions ordered by virtual time, then by the order they were
 * scheduled (so simultaneous events run first-come first-served, deterministically). Reading the time
 * ({@link #read()}) is the {@link Ticker} every router of the run is built with.
 *
 * <p>Not thread-safe: one simulation, one thread.
 */
final class EventQueue implements Ticker {
  private record Event(long time, long seq, Runnable action) {}

  private final PriorityQueue<Event> queue = new PriorityQueue<>(
      (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
  private long now;
  private long seq;
  private long fired;

  /** The current virtual time in nanoseconds. */
  @Override
  public long read() {
    return now;
  }

  /** Runs {@code action} at {@code atNanos} (not before now). */
  void schedule(long atNanos, Runnable action) {
    if (atNanos < now) {
      throw new IllegalStateException("event at " + atNanos + " ns scheduled in the past (now " + now
          + " ns)");
    }
    queue.add(new Event(atNanos, seq++, action));
  }

  boolean isEmpty() {
    return queue.isEmpty();
  }

  /** Advances the clock to the next event and runs it. */
  void runNext() {
    Event e = queue.poll();
    now = e.time;
    fired++;
    e.action.run();
  }

  long eventsFired() {
    return fired;
  }
}
