package io.github.kvroute.sim;

import com.google.common.collect.ImmutableSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The LoRA adapters resident on one replica: at most {@code max}, least recently used first out, and
 * never one that a running sequence is using (vLLM's {@code max_loras} bounds the adapters in a batch).
 *
 * <p>Not thread-safe: owned by its replica's engine.
 */
final class AdapterSlots {
  private final int max;
  /** Resident adapters in access order (least recent first). */
  private final LinkedHashMap<String, Boolean> resident = new LinkedHashMap<>(8, 0.75f, true);
  private final Map<String, Integer> inUse = new HashMap<>();
  private long loads;

  AdapterSlots(int max) {
    this.max = max;
  }

  boolean isResident(String adapter) {
    return resident.containsKey(adapter);
  }

  /** Whether {@code adapter} is resident or a slot can be made for it now. */
  boolean canLoad(String adapter) {
    if (resident.containsKey(adapter) || resident.size() < max) {
      return true;
    }
    for (String a : resident.keySet()) {
      if (!inUse.containsKey(a)) {
        return true;
      }
    }
    return false;
  }

  /** Loads {@code adapter}, evicting the least recently used idle one if full; {@link #canLoad} first. */
  void load(String adapter) {
    if (resident.size() >= max) {
      Iterator<String> it = resident.keySet().iterator();
      while (it.hasNext()) {
        if (!inUse.containsKey(it.next())) {
          it.remove();
          break;
        }
      }
    }
    resident.put(adapter, Boolean.TRUE);
    loads++;
  }

  /** A running sequence starts using {@code adapter} (which must be resident). */
  void acquire(String adapter) {
    resident.get(adapter);
    inUse.merge(adapter, 1, Integer::sum);
  }

  void release(String adapter) {
    inUse.computeIfPresent(adapter, (a, n) -> n == 1 ? null : n - 1);
  }

  void clear() {
    resident.clear();
    inUse.clear();
  }

  Set<String> residentSet() {
    return ImmutableSet.copyOf(resident.keySet());
  }

  long loads() {
    return loads;
  }
}
