package io.github.kvroute.core;

import io.github.kvroute.api.PromptKey;
import java.util.Arrays;

/**
 * The blocks one replica holds, in recency order: a linked hash set of primitive longs, so that a
 * touch, a removal and an eviction of the least recent block are O(1) and allocate nothing once the
 * arrays have grown.
 *
 * <h2>Design notes</h2>
 * Entries (key, touch tick, links, and their index position) live in parallel arrays. The index is
 * open-addressed with linear probing, one {@code long} per position packing a 32-bit fingerprint of the
 * key (the hash bits the probe start does not use) with the entry number, so a probe reads one array
 * and only a fingerprint hit reads the entry's key: a lookup of an absent key, the common case when a
 * new prompt is inserted, costs about one cache line. Each entry remembers its index position, so
 * evicting the tail writes its tombstone without probing.
 *
 * <p><b>Memory follows the live size, both ways.</b> The entry arrays hold {@code capacity} entries
 * with {@code size} in {@code [capacity / 2, capacity]} (above the minimum of
 * {@value #MIN_CAPACITY}): full, they grow by half; below half full after a removal, they are
 * compacted to one and a half times the live size. The index has {@code 2 x capacity} positions
 * (any length: the probe start is a multiply-shift of the hash, not a mask), so live entries fill a
 * quarter to a half of it; tombstones count toward the load, and a rebuild at
 * {@value #MAX_LOAD_PERCENT}% clears them. So the arrays cost at most {@code 2 x (28 + 2 x 8) = 88}
 * bytes per live entry, and each resize is paid for by the insertions or removals (at least a sixth
 * of the capacity) since the previous one.
 *
 * <p>Not thread-safe: owned by the prefix index's single writer.
 */
final class SlotLru {
  private static final int NIL = -1;
  private static final long TOMBSTONE = 0xFFFF_FFFFL;
  static final int MIN_CAPACITY = 16;
  private static final int MAX_LOAD_PERCENT = 70;

  private long[] keys = new long[MIN_CAPACITY];
  private long[] ticks = new long[MIN_CAPACITY];
  private int[] prev = new int[MIN_CAPACITY];
  private int[] next = new int[MIN_CAPACITY];
  private int[] position = new int[MIN_CAPACITY];
  private long[] index = new long[2 * MIN_CAPACITY];
  private int indexUsed;
  private int head = NIL;
  private int tail = NIL;
  private int free = NIL;
  private int allocated;
  private int size;
  /** The run {@link #runLength} found last: its first and last entries. */
  private int runFirst = NIL;
  private int runLast = NIL;

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
    if (touchIfPresent(key, tick)) {
      return false;
    }
    insertAbsent(key, tick);
    return true;
  }

  /** Adds {@code key}, known not to be held, as the most recently used at {@code tick}. */
  void insertAbsent(long key, long tick) {
    int e = allocate();
    keys[e] = key;
    ticks[e] = tick;
    indexPut(key, e);
    linkHead(e);
    size++;
  }

  /**
   * How many leading blocks of {@code prompt} (at most {@code count}) are held as one run: the first
   * block's entry followed, link by link toward the tail, by the next blocks' entries, the order a
   * re-insert of the same prefix leaves them in. Remembers the run for {@link #moveRunToHead}.
   */
  int runLength(PromptKey prompt, int count) {
    runFirst = NIL;
    if (count == 0) {
      return 0;
    }
    int first = find(prompt.blockHash(0));
    if (first < 0) {
      return 0;
    }
    int e = first;
    int length = 1;
    while (length < count) {
      int n = next[e];
      if (n == NIL || keys[n] != prompt.blockHash(length)) {
        break;
      }
      e = n;
      length++;
    }
    runFirst = first;
    runLast = e;
    return length;
  }

  /**
   * Touches the run {@link #runLength} found, as touching its blocks deepest first would: the run moves
   * to the head in its order and its {@code i}-th block gets tick {@code tickOfFirst - i}. Valid only
   * while no entry has been removed since.
   */
  void moveRunToHead(long tickOfFirst) {
    long t = tickOfFirst;
    for (int e = runFirst; ; e = next[e]) {
      ticks[e] = t--;
      if (e == runLast) {
        break;
      }
    }
    if (runFirst == head) {
      return;
    }
    int p = prev[runFirst];
    int n = next[runLast];
    next[p] = n;
    if (n != NIL) {
      prev[n] = p;
    } else {
      tail = p;
    }
    next[runLast] = head;
    prev[head] = runLast;
    prev[runFirst] = NIL;
    head = runFirst;
  }

  /** Removes {@code key}; returns whether it was held. */
  boolean remove(long key) {
    int e = find(key);
    if (e < 0) {
      return false;
    }
    removeEntry(e);
    return true;
  }

  /** Removes and returns the least recently used key; only valid when {@code size() > 0}. */
  long removeTail() {
    long key = keys[tail];
    removeEntry(tail);
    return key;
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

  /** Forgets every key and returns the arrays to their minimum size. */
  void clear() {
    if (keys.length == MIN_CAPACITY) {
      Arrays.fill(index, 0);
    } else {
      keys = new long[MIN_CAPACITY];
      ticks = new long[MIN_CAPACITY];
      prev = new int[MIN_CAPACITY];
      next = new int[MIN_CAPACITY];
      position = new int[MIN_CAPACITY];
      index = new long[2 * MIN_CAPACITY];
    }
    indexUsed = 0;
    head = tail = free = NIL;
    runFirst = runLast = NIL;
    allocated = 0;
    size = 0;
  }

  /** Bytes held by this structure's arrays, from their actual lengths (headers not included). */
  long arrayBytes() {
    return keys.length * (8L + 8 + 4 + 4 + 4) + index.length * 8L;
  }

  /** Entries the arrays have room for before they grow. */
  int capacity() {
    return keys.length;
  }

  private void removeEntry(int e) {
    index[position[e]] = TOMBSTONE;
    unlink(e);
    release(e);
    size--;
    if (size < keys.length / 2 && keys.length > MIN_CAPACITY) {
      compact(Math.max(MIN_CAPACITY, size + size / 2));
    }
  }

  /**
   * Moves the live entries, most recent first, into arrays of {@code capacity} entries and rebuilds
   * the index at twice that. Entry numbers change, so a remembered run is forgotten.
   */
  private void compact(int capacity) {
    long[] k = new long[capacity];
    long[] t = new long[capacity];
    int[] p = new int[capacity];
    int[] n = new int[capacity];
    int count = 0;
    for (int e = head; e != NIL; e = next[e]) {
      k[count] = keys[e];
      t[count] = ticks[e];
      p[count] = count - 1;
      n[count] = count + 1;
      count++;
    }
    keys = k;
    ticks = t;
    prev = p;
    next = n;
    position = new int[capacity];
    head = count == 0 ? NIL : 0;
    tail = count - 1;
    if (count > 0) {
      next[tail] = NIL;
    }
    free = NIL;
    allocated = count;
    runFirst = runLast = NIL;
    rehash(2 * capacity);
  }

  private static long hash(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 29);
  }

  private static long fingerprint(long h) {
    return h & 0xFFFF_FFFF_0000_0000L;
  }

  private int find(long key) {
    long h = hash(key);
    long fp = fingerprint(h);
    long[] ix = index;
    for (int i = start(h, ix.length); ; i = i + 1 == ix.length ? 0 : i + 1) {
      long v = ix[i];
      if (v == 0) {
        return -1;
      }
      if ((v & 0xFFFF_FFFF_0000_0000L) == fp && v != TOMBSTONE) {
        int e = (int) v - 1;
        if (keys[e] == key) {
          return e;
        }
      }
    }
  }

  /**
   * The probe start for hash {@code h} in an index of {@code length} positions (multiply-shift).
   */
  private static int start(long h, int length) {
    return (int) (((h & 0xFFFF_FFFFL) * length) >>> 32);
  }

  private void indexPut(long key, int entry) {
    if ((indexUsed + 1) * 100L > (long) index.length * MAX_LOAD_PERCENT) {
      rehash(index.length);
    }
    long h = hash(key);
    int length = index.length;
    int i = start(h, length);
    while (index[i] != 0 && index[i] != TOMBSTONE) {
      i = i + 1 == length ? 0 : i + 1;
    }
    if (index[i] == 0) {
      indexUsed++;
    }
    index[i] = fingerprint(h) | (entry + 1);
    position[entry] = i;
  }

  private void rehash(int length) {
    index = new long[length];
    indexUsed = 0;
    for (int e = head; e != NIL; e = next[e]) {
      long h = hash(keys[e]);
      int i = start(h, length);
      while (index[i] != 0) {
        i = i + 1 == length ? 0 : i + 1;
      }
      index[i] = fingerprint(h) | (e + 1);
      position[e] = i;
      indexUsed++;
    }
  }

  private int allocate() {
    if (free != NIL) {
      int e = free;
      free = next[e];
      return e;
    }
    if (allocated == keys.length) {
      // full (no free entry): grow by half, keeping entry numbers, so a remembered run stays
      int n = keys.length + keys.length / 2;
      keys = Arrays.copyOf(keys, n);
      ticks = Arrays.copyOf(ticks, n);
      prev = Arrays.copyOf(prev, n);
      next = Arrays.copyOf(next, n);
      position = Arrays.copyOf(position, n);
      rehash(2 * n);
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
