package io.github.kvroute.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Chained block key -> the set of replica slots believed to hold that block.
 *
 * <h2>Design notes</h2>
 * Because a block key is a chained hash, it names its whole prefix: a hash table keyed by it is a trie
 * whose nodes are found in O(1) instead of by walking from the root, so one pass over a prompt's keys
 * reads each node once (docs/prefix-index.md, "Matching").
 *
 * <p><b>Layout.</b> Open addressing with linear probing over two flat primitive arrays: {@code keys},
 * and {@code words} holding each position's holder bits inline, {@code stride} 64-bit words per
 * position (one per 64 slots). A probe compares keys in a contiguous {@code long[]} and a hit reads its
 * holder words from one place: no object per block and no pointer to chase, so a lookup costs about
 * two cache lines. Memory is {@code 8 x (1 + stride)} bytes per table position; the stride grows (by a
 * rebuild) when a slot beyond it is first set.
 *
 * <p><b>Keys never move.</b> Once a position is given a key it keeps that key until the table is
 * rebuilt. A block whose last holder leaves stays in place with no holder bits (dead); the same key
 * coming back revives it; other keys probe past it. A rebuild (when used positions, live and dead,
 * pass 5/8 of the table, or when live blocks fall below a quarter of it) copies the live blocks
 * into fresh arrays of 2 to 4 positions per live block, so dead positions are reclaimed and the
 * table shrinks with its contents: it never holds more than 4 positions per live block (above the
 * minimum size), and each rebuild is paid for by the additions or removals (an eighth of the table)
 * since the previous one. Key 0 marks an empty position, so the key 0 itself has a position of its
 * own past the probed ones (the arrays are one position longer than the table).
 *
 * <p><b>Concurrency</b> is single-writer / many-readers. Only the index's writer (holding its write
 * lock) mutates; readers take no lock. A reader takes the published {@link View} once per walk: because a
 * position's key never changes within one set of arrays, a reader that finds its key at a position knows
 * the holder words there are that key's. Keys and words are written with release stores and read with
 * acquire loads. A rebuild publishes new arrays through a volatile field; a reader finishes on whichever
 * arrays it started with. A reader can see a holder set mid-update, which means a match one block
 * shorter or longer than a moment later — the same uncertainty any routing index has, and never a torn
 * or out-of-bounds read.
 *
 * <p>Not thread-safe for writers: every mutating method must be called by the single writer.
 */
final class BlockTable {
  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final long EMPTY = 0;
  private static final int MIN_CAPACITY = 64;

  /** One published set of arrays. Readers use it for a whole walk. */
  static final class View {
    final long[] keys;
    final long[] words;
    final int stride;

    View(long[] keys, long[] words, int stride) {
      this.keys = keys;
      this.words = words;
      this.stride = stride;
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
      return w < stride ? (long) LONGS.getAcquire(words, pos * stride + w) : 0;
    }

    boolean anyHolder(int pos) {
      for (int i = pos * stride, end = i + stride; i < end; i++) {
        if (words[i] != 0) {
          return true;
        }
      }
      return false;
    }
  }

  private volatile View view = new View(new long[MIN_CAPACITY + 1], new long[MIN_CAPACITY + 1], 1);
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
    return pos >= 0 && v.anyHolder(pos);
  }

  /** Whether {@code slot} holds {@code key}. */
  boolean holds(long key, int slot) {
    View v = view;
    int pos = v.find(key);
    return pos >= 0 && (v.word(pos, slot >>> 6) & (1L << slot)) != 0;
  }

  /** Writer: sets {@code slot}'s bit on {@code key}, adding the block if needed; whether it was new. */
  boolean addHolder(long key, int slot) {
    int w = slot >>> 6;
    View v = view;
    if (w >= v.stride) {
      v = rebuild(live, w + 1);
    }
    int pos = v.find(key);
    if (pos < 0) {
      if ((used + 1) * 8L > (v.keys.length - 1) * 5L) {
        v = rebuild(live + 1, v.stride);
      }
      pos = claim(v, key);
    }
    boolean wasLive = v.anyHolder(pos);
    int at = pos * v.stride + w;
    long old = v.words[at];
    long bit = 1L << slot;
    if ((old & bit) != 0) {
      return false;
    }
    LONGS.setRelease(v.words, at, old | bit);
    if (!wasLive) {
      live++;
    }
    return true;
  }

  /** Writer: clears {@code slot}'s bit on {@code key}; whether it was set. */
  boolean removeHolder(long key, int slot) {
    View v = view;
    int w = slot >>> 6;
    int pos = v.find(key);
    if (pos < 0 || w >= v.stride) {
      return false;
    }
    int at = pos * v.stride + w;
    long old = v.words[at];
    long bit = 1L << slot;
    if ((old & bit) == 0) {
      return false;
    }
    LONGS.setRelease(v.words, at, old & ~bit);
    if (!v.anyHolder(pos)) {
      live--;
      if (live * 4L < capacity() && capacity() > MIN_CAPACITY) {
        rebuild(live, v.stride);
      }
    }
    return true;
  }

  /** Bytes held by the published arrays, from their actual lengths (headers not included). */
  long arrayBytes() {
    View v = view;
    return 8L * (v.keys.length + v.words.length);
  }

  /** Writer-side count of blocks with at least one holder. */
  int size() {
    return live;
  }

  /** Writer-side number of probed table positions (for memory accounting and tests). */
  int capacity() {
    return view.keys.length - 1;
  }

  /** Holder words per position. */
  int stride() {
    return view.stride;
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

  /**
   * Copies the live blocks into arrays of {@code stride} words per position, sized so that
   * {@code needed} blocks fill at most half.
   */
  private View rebuild(int needed, int stride) {
    View old = view;
    int capacity = MIN_CAPACITY;
    while (capacity < needed * 2L) {
      capacity <<= 1;
    }
    long[] keys = new long[capacity + 1];
    long[] words = new long[(capacity + 1) * stride];
    int mask = capacity - 1;
    int moved = 0;
    int oldZero = old.keys.length - 1;
    for (int p = 0; p <= oldZero; p++) {
      if (!old.anyHolder(p)) {
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
      System.arraycopy(old.words, p * old.stride, words, i * stride, old.stride);
    }
    used = moved;
    View fresh = new View(keys, words, stride);
    view = fresh;
    return fresh;
  }
}
