package io.github.kvroute.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Chained block key -> the set of replica slots believed to hold that block.
 *
 * <h2>Design notes</h2>
 * Because a block key is a chained hash, it names its whole prefix: a hash table keyed by it is a trie
 * whose nodes are found in O(1) instead of by walking from the root, so one pass over a prompt's keys
 * reads each node once (DESIGN.md "one walk").
 *
 * <p><b>Layout.</b> Open addressing with linear probing over parallel primitive arrays: {@code keys},
 * {@code low} (holder bits of slots 0-63, inline) and, only once a slot of 64 or more has been seen,
 * {@code high} (the further holder words, per table position). A probe compares keys in a contiguous
 * {@code long[]} and a hit reads its holder word from the same position: no object per block, no pointer
 * to chase, about two cache lines per block looked up. Memory is 16 bytes per table position, plus the
 * high words for fleets over 64 replicas.
 *
 * <p><b>Keys never move.</b> Once a position is given a key it keeps that key until the table is
 * rebuilt. A block whose last holder leaves stays in place with no holder bits (dead); the same key
 * coming back revives it; other keys probe past it. A rebuild (when used positions, live and dead, pass
 * 5/8 of the table) copies the live blocks into fresh arrays sized for them, so dead positions are
 * reclaimed and the table also shrinks. Key 0 marks an empty position, so the key 0 itself has a
 * position of its own past the probed ones (the arrays are one longer than the table).
 *
 * <p><b>Concurrency</b> is single-writer / many-readers. Only the index's writer (holding its write
 * lock) mutates; readers take no lock. A reader takes the published {@link View} once per walk: because a
 * position's key never changes within one set of arrays, a reader that finds its key at a position knows
 * the holder words there are that key's. Keys and words are written with release stores after the words
 * they guard and read with acquire loads. A rebuild publishes new arrays through a volatile field; a
 * reader finishes on whichever arrays it started with. A reader can see a holder set mid-update, which
 * means a match one block shorter or longer than a moment later — the same uncertainty any routing index
 * has, and never a torn or out-of-bounds read.
 *
 * <p>Not thread-safe for writers: every mutating method must be called by the single writer.
 */
final class BlockTable {
  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle ROWS = MethodHandles.arrayElementVarHandle(long[][].class);
  private static final long EMPTY = 0;
  private static final int MIN_CAPACITY = 64;

  /** One published set of arrays. Readers use it for a whole walk. */
  static final class View {
    final long[] keys;
    final long[] low;
    /** Per position, holder words 1.. (null rows until set); null until a slot of 64+ is seen. */
    final long[][] high;

    View(long[] keys, long[] low, long[][] high) {
      this.keys = keys;
      this.low = low;
      this.high = high;
    }

    /** The position holding {@code key} (live or dead), or -1. */
    int find(long key) {
      long[] ks = keys;
      if (key == EMPTY) {
        return ks.length - 1;
      }
      int mask = ks.length - 2;
      for (int i = spread(key) & mask; ; i = (i + 1) & mask) {
        long x = (long) LONGS.getAcquire(ks, i);
        if (x == key) {
          return i;
        }
        if (x == EMPTY) {
          return -1;
        }
      }
    }

    /** Holder word {@code w} (slots {@code 64w .. 64w+63}) at position {@code pos}. */
    long word(int pos, int w) {
      if (w == 0) {
        return (long) LONGS.getAcquire(low, pos);
      }
      if (high == null) {
        return 0;
      }
      long[] row = (long[]) ROWS.getAcquire(high, pos);
      return row == null || w > row.length ? 0 : (long) LONGS.getAcquire(row, w - 1);
    }
  }

  private volatile View view = new View(new long[MIN_CAPACITY + 1], new long[MIN_CAPACITY + 1], null);
  private int live;
  private int used;

  private static int spread(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  /** Reader-side: the arrays to use for one walk; lock-free. */
  View view() {
    return view;
  }

  /** Whether any slot holds {@code key}. */
  boolean isHeld(long key) {
    View v = view;
    int pos = v.find(key);
    return pos >= 0 && anyHolder(v, pos);
  }

  /** Whether {@code slot} holds {@code key}. */
  boolean holds(long key, int slot) {
    View v = view;
    int pos = v.find(key);
    return pos >= 0 && (v.word(pos, slot >>> 6) & (1L << slot)) != 0;
  }

  /** Writer: sets {@code slot}'s bit on {@code key}, adding the block if needed; whether it was new. */
  boolean addHolder(long key, int slot) {
    View v = view;
    int pos = v.find(key);
    if (pos < 0) {
      if ((used + 1) * 8L > (v.keys.length - 1) * 5L) {
        v = rebuild(live + 1);
      }
      pos = claim(v, key);
    }
    boolean wasLive = anyHolder(v, pos);
    int w = slot >>> 6;
    long bit = 1L << slot;
    if (w == 0) {
      long old = v.low[pos];
      if ((old & bit) != 0) {
        return false;
      }
      LONGS.setRelease(v.low, pos, old | bit);
    } else {
      long[] row = highRow(v, pos, w);
      long old = row[w - 1];
      if ((old & bit) != 0) {
        return false;
      }
      LONGS.setRelease(row, w - 1, old | bit);
    }
    if (!wasLive) {
      live++;
    }
    return true;
  }

  /** Writer: clears {@code slot}'s bit on {@code key}; whether it was set. */
  boolean removeHolder(long key, int slot) {
    View v = view;
    int pos = v.find(key);
    if (pos < 0) {
      return false;
    }
    int w = slot >>> 6;
    long bit = 1L << slot;
    if (w == 0) {
      long old = v.low[pos];
      if ((old & bit) == 0) {
        return false;
      }
      LONGS.setRelease(v.low, pos, old & ~bit);
    } else {
      long[] row = v.high == null ? null : v.high[pos];
      if (row == null || w > row.length || (row[w - 1] & bit) == 0) {
        return false;
      }
      LONGS.setRelease(row, w - 1, row[w - 1] & ~bit);
    }
    if (!anyHolder(v, pos)) {
      live--;
    }
    return true;
  }

  /** Writer-side count of blocks with at least one holder. */
  int size() {
    return live;
  }

  /** Writer-side number of probed table positions (for memory accounting and tests). */
  int capacity() {
    return view.keys.length - 1;
  }

  private static boolean anyHolder(View v, int pos) {
    if (v.low[pos] != 0) {
      return true;
    }
    long[] row = v.high == null ? null : v.high[pos];
    if (row != null) {
      for (long word : row) {
        if (word != 0) {
          return true;
        }
      }
    }
    return false;
  }

  /** Puts {@code k} (not 0) at its first empty position; the words there are zero. */
  private int claim(View v, long k) {
    long[] ks = v.keys;
    int mask = ks.length - 2;
    int i = spread(k) & mask;
    while (ks[i] != EMPTY) {
      i = (i + 1) & mask;
    }
    LONGS.setRelease(ks, i, k);
    used++;
    return i;
  }

  /** The row of holder words 1.. at {@code pos}, at least {@code w} long (created and published). */
  private long[] highRow(View v, int pos, int w) {
    if (v.high == null) {
      View widened = new View(v.keys, v.low, new long[v.keys.length][]);
      view = widened;
      v = widened;
    }
    long[] row = v.high[pos];
    if (row == null || w > row.length) {
      row = row == null ? new long[w] : Arrays.copyOf(row, w);
      ROWS.setRelease(v.high, pos, row);
    }
    return row;
  }

  /** Copies the live blocks into arrays sized so that {@code needed} blocks fill at most half. */
  private View rebuild(int needed) {
    View old = view;
    int capacity = MIN_CAPACITY;
    while (capacity < needed * 2L) {
      capacity <<= 1;
    }
    long[] keys = new long[capacity + 1];
    long[] low = new long[capacity + 1];
    long[][] rows = old.high == null ? null : new long[capacity + 1][];
    int mask = capacity - 1;
    int moved = 0;
    int oldZero = old.keys.length - 1;
    for (int p = 0; p <= oldZero; p++) {
      if (!anyHolder(old, p)) {
        continue;
      }
      int i = capacity;
      if (p != oldZero) {
        long k = old.keys[p];
        i = spread(k) & mask;
        while (keys[i] != EMPTY) {
          i = (i + 1) & mask;
        }
        keys[i] = k;
        moved++;
      }
      low[i] = old.low[p];
      if (rows != null && old.high[p] != null) {
        rows[i] = old.high[p].clone();
      }
    }
    used = moved;
    View fresh = new View(keys, low, rows);
    view = fresh;
    return fresh;
  }
}
