package io.github.kvroute.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Chained block key -> the set of replica slots believed to hold that block.
 *
 * <h2>Design notes</h2>
 * Because a block key is a chained hash, it names its whole prefix: a hash table keyed by it is a trie
 * whose nodes are found in O(1) instead of by walking from the root, so one pass over a prompt's keys
 * reads each node once (DESIGN.md "one walk").
 *
 * <p>Concurrency is single-writer / many-readers. Only the index's writer (holding its write lock)
 * mutates; readers take no lock. Slots are published with release stores and read with acquire loads; a
 * {@link Block}'s key is final, so a reader that sees a block sees its key. Deletion leaves a tombstone
 * (a reader probing past it keeps going); resizing builds a new array and publishes it through a volatile
 * field, so a reader finishes on whichever array it started with. Holder bits are stored per 64-bit word
 * with release stores and read with acquire loads: a reader can see a holder set mid-update, which means
 * a match one block shorter or longer than a moment later — the same uncertainty any routing index has,
 * and never a torn or out-of-bounds read.
 *
 * <p>Not thread-safe for writers: every mutating method must be called by the single writer.
 */
final class BlockTable {
  static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Block[].class);
  static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

  /** One block and the slots holding it. */
  static final class Block {
    final long key;
    /** Holder bits; replaced (never shrunk) by the writer when a slot beyond its width is set. */
    volatile long[] holders;
    /** Writer-only count of set bits. */
    int holderCount;

    Block(long key, int words) {
      this.key = key;
      this.holders = new long[Math.max(1, words)];
    }

    /** Reader-side: word {@code w} of the holder set. */
    long word(long[] h, int w) {
      return w < h.length ? (long) WORDS.getAcquire(h, w) : 0L;
    }

    boolean holds(int slot) {
      long[] h = holders;
      return (word(h, slot >>> 6) & (1L << slot)) != 0;
    }
  }

  private static final Block TOMBSTONE = new Block(0, 1);

  private volatile Block[] slots = new Block[64];
  private int live;
  private int dead;

  private static int spread(long key) {
    int h = (int) (key ^ (key >>> 32));
    return h ^ (h >>> 16);
  }

  /** Reader-side lookup; lock-free. */
  Block get(long key) {
    Block[] t = slots;
    int mask = t.length - 1;
    int i = spread(key) & mask;
    for (int probes = 0; probes <= mask; probes++) {
      Block b = (Block) SLOTS.getAcquire(t, i);
      if (b == null) {
        return null;
      }
      if (b != TOMBSTONE && b.key == key) {
        return b;
      }
      i = (i + 1) & mask;
    }
    return null;
  }

  /** Writer: the block for {@code key}, created empty if absent. */
  Block getOrCreate(long key, int words) {
    Block existing = get(key);
    if (existing != null) {
      return existing;
    }
    if ((live + dead + 1) * 4L > slots.length * 3L) {
      resize();
    }
    Block[] t = slots;
    int mask = t.length - 1;
    int i = spread(key) & mask;
    while (true) {
      Block b = t[i];
      if (b == null || b == TOMBSTONE) {
        if (b == TOMBSTONE) {
          dead--;
        }
        Block created = new Block(key, words);
        SLOTS.setRelease(t, i, created);
        live++;
        return created;
      }
      i = (i + 1) & mask;
    }
  }

  /** Writer: sets {@code slot}'s bit; returns whether it was newly set. */
  boolean addHolder(Block b, int slot) {
    int w = slot >>> 6;
    long[] h = b.holders;
    if (w >= h.length) {
      long[] grown = java.util.Arrays.copyOf(h, w + 1);
      b.holders = grown;
      h = grown;
    }
    long old = h[w];
    long bit = 1L << slot;
    if ((old & bit) != 0) {
      return false;
    }
    WORDS.setRelease(h, w, old | bit);
    b.holderCount++;
    return true;
  }

  /** Writer: clears {@code slot}'s bit, deleting the block when no holder remains. */
  boolean removeHolder(Block b, int slot) {
    int w = slot >>> 6;
    long[] h = b.holders;
    if (w >= h.length) {
      return false;
    }
    long old = h[w];
    long bit = 1L << slot;
    if ((old & bit) == 0) {
      return false;
    }
    WORDS.setRelease(h, w, old & ~bit);
    if (--b.holderCount == 0) {
      delete(b);
    }
    return true;
  }

  private void delete(Block b) {
    Block[] t = slots;
    int mask = t.length - 1;
    int i = spread(b.key) & mask;
    for (int probes = 0; probes <= mask; probes++) {
      Block x = t[i];
      if (x == null) {
        return;
      }
      if (x == b) {
        SLOTS.setRelease(t, i, TOMBSTONE);
        live--;
        dead++;
        return;
      }
      i = (i + 1) & mask;
    }
  }

  private void resize() {
    Block[] old = slots;
    int capacity = old.length;
    while ((live + 1) * 2L > capacity) {
      capacity <<= 1;
    }
    if (capacity == old.length && dead == 0) {
      capacity <<= 1;
    }
    Block[] t = new Block[capacity];
    int mask = capacity - 1;
    for (Block b : old) {
      if (b != null && b != TOMBSTONE) {
        int i = spread(b.key) & mask;
        while (t[i] != null) {
          i = (i + 1) & mask;
        }
        t[i] = b;
      }
    }
    dead = 0;
    slots = t;
  }

  /** Writer-side count of blocks with at least one holder. */
  int size() {
    return live;
  }

  /** Writer-side length of the slot array (for memory accounting). */
  int capacity() {
    return slots.length;
  }
}
