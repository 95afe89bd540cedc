package io.github.kvroute.sim;

import io.github.kvroute.api.Priority;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A replica's waiting requests: one FIFO per {@link Priority}, served INTERACTIVE first, then STANDARD,
 * then BATCH. A preempted sequence goes back to the front of its class. Keeps the sum of the waiting
 * requests' uncached prompt tokens for the replica's reports.
 *
 * <p>Not thread-safe: owned by its replica's engine.
 */
final class WaitingQueue {
  private final List<ArrayDeque<Sequence>> byPriority = new ArrayList<>();
  private int size;
  private long uncachedTokens;

  WaitingQueue() {
    for (int i = 0; i < Priority.values().length; i++) {
      byPriority.add(new ArrayDeque<>());
    }
  }

  /** Queues {@code s} at the back (a new arrival) or the front (a preempted sequence) of its class. */
  void add(Sequence s, boolean front) {
    ArrayDeque<Sequence> q = byPriority.get(s.request.request.priority().ordinal());
    if (front) {
      q.addFirst(s);
    } else {
      q.addLast(s);
    }
    size++;
    uncachedTokens += s.estimatedUncached;
  }

  /** The next sequence to admit, or null. */
  Sequence peek() {
    for (ArrayDeque<Sequence> q : byPriority) {
      if (!q.isEmpty()) {
        return q.peekFirst();
      }
    }
    return null;
  }

  /** Removes {@link #peek()}'s sequence, {@code s}. */
  void remove(Sequence s) {
    Sequence head = byPriority.get(s.request.request.priority().ordinal()).pollFirst();
    if (head != s) {
      throw new IllegalStateException("waiting queue: removed " + head + " instead of " + s);
    }
    size--;
    uncachedTokens -= s.estimatedUncached;
  }

  /** Moves every waiting sequence, in admission order, to {@code out}. */
  void drainTo(List<Sequence> out) {
    for (ArrayDeque<Sequence> q : byPriority) {
      out.addAll(q);
      q.clear();
    }
    size = 0;
    uncachedTokens = 0;
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** Uncached prompt tokens of the waiting sequences, as estimated when each was queued. */
  long uncachedTokens() {
    return uncachedTokens;
  }
}
