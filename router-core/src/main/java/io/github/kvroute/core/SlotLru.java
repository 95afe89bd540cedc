package io.github.kvroute.core;

import java.util.Arrays;

/**
 * The blocks one replica holds, in recency order: a linked hash set of primitive longs (keys, links
 * and touch ticks in parallel arrays, an open-addressed index), so that a touch, a removal and an
 * eviction of the least recent block are O(1) and allocate nothing once the arrays have grown.
 *
 * <p>Not thread-safe: owned by the prefix index's single writer.
 */
final class SlotLru {
  private static final int NIL = -1;

  private long[] keys = new long[16];
  private long[] ticks = new long[16];
  private int[] prev = new int[16];
  private int[] next = new int[16];
  private int[] index = new int[32];
  private int indexUsed;
  private int head = NIL;
  private int tail = NIL;
  private int free = NIL;
  private int allocated;
  private int size;

  int size() {
    return size;
  }

  /** Whether {@code key} is held. */
  boolean contains(long key) {
    return find(key) >= 0;
  }

  /** The tick of {@code key}'s last touch, or -1 if absent. */
  long tickOf(long key) {
    int e = find(key);
    return e < 0 ? -1 : ticks[e];
  }

  /** Marks {@code key} most recently used at {@code tick} if held (one probe); returns whether it was. */
  boolean touchIfPresent(long key, long tick) {
    int e = find(key);
    if (e < 0) {
      return false;
    }
    ticks[e] = tick;
    if (e != head) {
      unlink(e);
      linkHead(e);
    }
    return true;
  }

  /** Marks {@code key} most recently used at {@code tick}; returns true if it was not held before. */
  boolean touch(long key, long tick) {
    int e = find(key);
    if (e >= 0) {
      ticks[e] = tick;
      if (e != head) {
        unlink(e);
        linkHead(e);
      }
      return false;
    }
    e = allocate();
    keys[e] = key;
    ticks[e] = tick;
    indexPut(key, e);
    linkHead(e);
    size++;
    return true;
  }

  /** Removes {@code key}; returns whether it was held. */
  boolean remove(long key) {
    int pos = findPosition(key);
    if (pos < 0) {
      return false;
    }
    int e = index[pos] - 1;
    index[pos] = -1;
    unlink(e);
    release(e);
    size--;
    return true;
  }

  /** The least recently used key; only valid when {@code size() > 0}. */
  long tailKey() {
    return keys[tail];
  }

  /** The tick of the least recently used key, or {@code Long.MAX_VALUE} when empty. */
  long tailTick() {
    return tail == NIL ? Long.MAX_VALUE : ticks[tail];
  }

  /** All held keys, most recent first (a copy). */
  long[] keysByRecency() {
    long[] out = new long[size];
    int i = 0;
    for (int e = head; e != NIL; e = next[e]) {
      out[i++] = keys[e];
    }
    return out;
  }

  void clear() {
    Arrays.fill(index, 0);
    indexUsed = 0;
    head = tail = free = NIL;
    allocated = 0;
    size = 0;
  }

  /** Approximate bytes held by this structure's arrays. */
  long arrayBytes() {
    return keys.length * 8L + ticks.length * 8L + prev.length * 4L + next.length * 4L
        + index.length * 4L;
  }

  private int find(long key) {
    int pos = findPosition(key);
    return pos < 0 ? -1 : index[pos] - 1;
  }

  private int findPosition(long key) {
    int mask = index.length - 1;
    int i = spread(key) & mask;
    while (true) {
      int v = index[i];
      if (v == 0) {
        return -1;
      }
      if (v > 0 && keys[v - 1] == key) {
        return i;
      }
      i = (i + 1) & mask;
    }
  }

  private void indexPut(long key, int entry) {
    if ((indexUsed + 1) * 2L > index.length) {
      rehash(size * 4 + 32 > index.length ? index.length * 2 : index.length);
    }
    int mask = index.length - 1;
    int i = spread(key) & mask;
    while (index[i] > 0) {
      i = (i + 1) & mask;
    }
    if (index[i] == 0) {
      indexUsed++;
    }
    index[i] = entry + 1;
  }

  private void rehash(int capacity) {
    index = new int[capacity];
    indexUsed = 0;
    int mask = capacity - 1;
    for (int e = head; e != NIL; e = next[e]) {
      int i = spread(keys[e]) & mask;
      while (index[i] != 0) {
        i = (i + 1) & mask;
      }
      index[i] = e + 1;
      indexUsed++;
    }
  }

  private static int spread(long key) {
    int h = (int) (key ^ (key >>> 32));
    return (h ^ (h >>> 16)) * 0x9E3779B1;
  }

  private int allocate() {
    if (free != NIL) {
      int e = free;
      free = next[e];
      return e;
    }
    if (allocated == keys.length) {
      int n = keys.length * 2;
      keys = Arrays.copyOf(keys, n);
      ticks = Arrays.copyOf(ticks, n);
      prev = Arrays.copyOf(prev, n);
      next = Arrays.copyOf(next, n);
    }
    return allocated++;
  }

  private void release(int e) {
    next[e] = free;
    free = e;
  }

  private void linkHead(int e) {
    prev[e] = NIL;
    next[e] = head;
    if (head != NIL) {
      prev[head] = e;
    }
    head = e;
    if (tail == NIL) {
      tail = e;
    }
  }

  private void unlink(int e) {
    int p = prev[e];
    int n = next[e];
    if (p != NIL) {
      next[p] = n;
    } else {
      head = n;
    }
    if (n != NIL) {
      prev[n] = p;
    } else {
      tail = p;
    }
  }
}
