package io.github.kvroute.micrometer;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code replica} tag's values, bounded: the first {@code limit} distinct replica ids get a tag
 * of their own, every later one is folded into {@value #OTHER}. An id keeps its place once given (a
 * meter's series must not change name under it), so the bound counts every id seen over the
 * binder's life, not the fleet's size at one moment.
 *
 * <p>Thread-safety: thread-safe; the bound holds exactly under concurrent calls.
 */
final class ReplicaTags {
  static final String OTHER = "other";

  private final int limit;
  private final Set<String> admitted = ConcurrentHashMap.newKeySet();
  private final AtomicInteger places = new AtomicInteger();

  ReplicaTags(int limit) {
    this.limit = limit;
  }

  /** The tag value for {@code replicaId}: the id itself while places last, else {@value #OTHER}. */
  String of(String replicaId) {
    if (admitted.contains(replicaId)) {
      return replicaId;
    }
    // reserve a place before admitting, so that racing newcomers cannot exceed the limit
    while (true) {
      int taken = places.get();
      if (taken >= limit) {
        return admitted.contains(replicaId) ? replicaId : OTHER;
      }
      if (places.compareAndSet(taken, taken + 1)) {
        if (!admitted.add(replicaId)) {
          places.decrementAndGet(); // another thread admitted the same id meanwhile
        }
        return replicaId;
      }
    }
  }

  /** Ids with a tag of their own. */
  int size() {
    return admitted.size();
  }
}
