package io.github.kvroute.core;

import io.github.kvroute.api.PromptKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the prefix index should believe, kept the plain way for model-based tests: block key ->
 * holder slots, and per slot its keys least recent first, each with the operation that last touched
 * it. Not thread-safe.
 */
final class IndexReference {
  final Map<Long, Set<Integer>> holders = new HashMap<>();
  final List<LinkedHashMap<Long, Object>> recency = new ArrayList<>();
  final long[] capacity;
  final boolean[] exact;
  final int[] generation;

  IndexReference(int slots, long defaultCapacity) {
    capacity = new long[slots];
    exact = new boolean[slots];
    generation = new int[slots];
    for (int s = 0; s < slots; s++) {
      recency.add(new LinkedHashMap<>());
      capacity[s] = defaultCapacity;
    }
  }

  void touch(int slot, long key, Object by) {
    recency.get(slot).remove(key);
    recency.get(slot).put(key, by);
    holders.computeIfAbsent(key, k -> new HashSet<>()).add(slot);
  }

  void drop(int slot, long key) {
    if (recency.get(slot).remove(key) != null) {
      Set<Integer> h = holders.get(key);
      h.remove(slot);
      if (h.isEmpty()) {
        holders.remove(key);
      }
    }
  }

  void clear(int slot) {
    for (Long key : List.copyOf(recency.get(slot).keySet())) {
      drop(slot, key);
    }
  }

  /** Drops {@code slot}'s least recent keys down to its capacity. */
  void enforceCapacity(int slot) {
    while (recency.get(slot).size() > capacity[slot]) {
      drop(slot, recency.get(slot).keySet().iterator().next());
    }
  }

  /** The leading blocks of {@code p} that {@code slot} holds. */
  int match(PromptKey p, int slot) {
    int i = 0;
    while (i < p.blockCount() && holders.getOrDefault(p.blockHash(i), Set.of()).contains(slot)) {
      i++;
    }
    return i;
  }

  long entries() {
    return recency.stream().mapToLong(Map::size).sum();
  }

  /**
   * Runs {@code writers} to completion while {@code reader} runs, then tells the reader to stop
   * ({@code done}) and waits for it: the concurrent half of the index's model-based tests.
   */
  static void writeWhileReading(Thread reader, Thread[] writers,
      java.util.concurrent.atomic.AtomicBoolean done) throws InterruptedException {
    reader.start();
    for (Thread t : writers) {
      t.start();
    }
    for (Thread t : writers) {
      t.join();
    }
    done.set(true);
    reader.join();
  }
}
