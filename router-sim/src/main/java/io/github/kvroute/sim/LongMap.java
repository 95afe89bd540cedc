package io.github.kvroute.sim;

import java.util.function.Consumer;

/**
 * A map from primitive {@code long} keys to values: open addressing with linear probing and
 * backward-shift deletion (no tombstones), so lookups of the block registry neither box keys nor chase
 * chains. Key 0 marks an empty position, so a probe reads only the key array until it hits; the key 0
 * itself is kept in a field of its own. Guava and the JDK have no primitive map; this is the minimum the
 * simulator's hot path needs.
 *
 * <p>Not thread-safe.
 */
final class LongMap<V> {
  private long[] keys;
  private Object[] values;
  private Object zeroValue;
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
    if (key == 0) {
      return (V) zeroValue;
    }
    long[] ks = keys;
    for (int i = slot(key, mask); ; i = (i + 1) & mask) {
      long k = ks[i];
      if (k == key) {
        return (V) values[i];
      }
      if (k == 0) {
        return null;
      }
    }
  }

  /** Maps {@code key} to {@code value} (non-null), replacing any previous value. */
  void put(long key, V value) {
    if (key == 0) {
      size += zeroValue == null ? 1 : 0;
      zeroValue = value;
      return;
    }
    reserve();
    int p = position(key);
    if (p >= 0) {
      values[p] = value;
    } else {
      insertAt(~p, key, value);
    }
  }

  /** Removes {@code key} if present. */
  void remove(long key) {
    if (key == 0) {
      size -= zeroValue == null ? 0 : 1;
      zeroValue = null;
      return;
    }
    int p = position(key);
    if (p >= 0) {
      removeAt(p);
    }
  }

  // -------------------------------------------- by position: one probe for a read and a write

  /**
   * For a non-zero {@code key}: its position if present, else the complement ({@code ~p}) of the
   * empty position where it would be stored. A position stays valid until the next change of the
   * map; {@link #reserve} first if the key may be stored there.
   */
  int position(long key) {
    long[] ks = keys;
    for (int i = slot(key, mask); ; i = (i + 1) & mask) {
      long k = ks[i];
      if (k == key) {
        return i;
      }
      if (k == 0) {
        return ~i;
      }
    }
  }

  /** The value at present position {@code p}. */
  @SuppressWarnings("unchecked")
  V valueAt(int p) {
    return (V) values[p];
  }

  /** Replaces the value at present position {@code p} with {@code value} (non-null). */
  void setAt(int p, V value) {
    values[p] = value;
  }

  /**
   * Makes room for one more key, so that a {@link #position} taken next can take it; whether the
   * map grew (which moves every position).
   */
  boolean reserve() {
    if ((size + 1) * 2 > keys.length) {
      grow();
      return true;
    }
    return false;
  }

  /**
   * Stores non-zero {@code key}, absent, at the empty position {@code p} its {@link #position}
   * named (after a {@link #reserve}).
   */
  void insertAt(int p, long key, V value) {
    keys[p] = key;
    values[p] = value;
    size++;
  }

  /** Removes the key at present position {@code p}. */
  void removeAt(int p) {
    size--;
    // backward-shift: move later entries of the run into the hole when their home allows it
    int hole = p;
    for (int j = (hole + 1) & mask; keys[j] != 0; j = (j + 1) & mask) {
      int home = slot(keys[j], mask);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        keys[hole] = keys[j];
        values[hole] = values[j];
        hole = j;
      }
    }
    keys[hole] = 0;
    values[hole] = null;
  }

  /**
   * Loads where a probe for {@code key} starts, in both arrays, and returns a value of no meaning
   * for the caller to keep: touching the keys a walk will look up, in a loop of independent loads,
   * lets the processor overlap their cache misses, which a probe per key would take one at a time.
   */
  long touch(long key) {
    int i = slot(key, mask);
    return keys[i] + (values[i] == null ? 0 : 1);
  }

  int size() {
    return size;
  }

  /** Applies {@code action} to every value (in no particular order). */
  @SuppressWarnings("unchecked")
  void forEachValue(Consumer<V> action) {
    if (zeroValue != null) {
      action.accept((V) zeroValue);
    }
    for (int i = 0; i < keys.length; i++) {
      if (keys[i] != 0) {
        action.accept((V) values[i]);
      }
    }
  }

  private void grow() {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    int n = oldKeys.length * 2;
    keys = new long[n];
    values = new Object[n];
    mask = n - 1;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != 0) {
        int j = slot(oldKeys[i], mask);
        while (keys[j] != 0) {
          j = (j + 1) & mask;
        }
        keys[j] = oldKeys[i];
        values[j] = oldValues[i];
      }
    }
  }
}
