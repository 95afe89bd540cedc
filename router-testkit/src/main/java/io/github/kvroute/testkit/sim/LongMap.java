package io.github.kvroute.testkit.sim;

import java.util.Arrays;

/**
 * A map from primitive {@code long} keys to values: open addressing with linear probing and
 * backward-shift deletion (no tombstones), so lookups of the block registry neither box keys nor chase
 * chains. Guava and the JDK have no primitive map; this is the minimum the simulator's hot path needs.
 *
 * <p>Not thread-safe.
 */
final class LongMap<V> {
  private long[] keys;
  private Object[] values;
  private int size;
  private int mask;

  LongMap() {
    keys = new long[64];
    values = new Object[64];
    mask = 63;
  }

  private static int slot(long key, int mask) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }

  @SuppressWarnings("unchecked")
  V get(long key) {
    for (int i = slot(key, mask); ; i = (i + 1) & mask) {
      Object v = values[i];
      if (v == null) {
        return null;
      }
      if (keys[i] == key) {
        return (V) v;
      }
    }
  }

  /** Maps {@code key} to {@code value} (non-null), replacing any previous value. */
  void put(long key, V value) {
    if ((size + 1) * 2 > values.length) {
      grow();
    }
    int i = slot(key, mask);
    while (values[i] != null && keys[i] != key) {
      i = (i + 1) & mask;
    }
    if (values[i] == null) {
      size++;
    }
    keys[i] = key;
    values[i] = value;
  }

  /** Removes {@code key} if present. */
  void remove(long key) {
    int i = slot(key, mask);
    while (true) {
      if (values[i] == null) {
        return;
      }
      if (keys[i] == key) {
        break;
      }
      i = (i + 1) & mask;
    }
    size--;
    // backward-shift: move later entries of the run into the hole when their home allows it
    int hole = i;
    for (int j = (hole + 1) & mask; values[j] != null; j = (j + 1) & mask) {
      int home = slot(keys[j], mask);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        keys[hole] = keys[j];
        values[hole] = values[j];
        hole = j;
      }
    }
    values[hole] = null;
  }

  int size() {
    return size;
  }

  /** Applies {@code action} to every value (in no particular order). */
  @SuppressWarnings("unchecked")
  void forEachValue(java.util.function.Consumer<V> action) {
    for (Object v : values) {
      if (v != null) {
        action.accept((V) v);
      }
    }
  }

  private void grow() {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    int n = oldValues.length * 2;
    keys = new long[n];
    values = new Object[n];
    mask = n - 1;
    size = 0;
    for (int i = 0; i < oldValues.length; i++) {
      if (oldValues[i] != null) {
        int j = slot(oldKeys[i], mask);
        while (values[j] != null) {
          j = (j + 1) & mask;
        }
        keys[j] = oldKeys[i];
        values[j] = oldValues[i];
        size++;
      }
    }
    Arrays.fill(oldValues, null);
  }
}
