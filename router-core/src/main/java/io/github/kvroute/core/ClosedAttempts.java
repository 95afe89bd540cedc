package io.github.kvroute.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.Ticker;
import java.util.Arrays;

/**
 * Fingerprints of recently closed attempts, each remembered for a fixed time after it was last
 * marked, at most a fixed number of them (beyond that the least recently marked are forgotten
 * first), so that a duplicated outcome is recognised as one.
 *
 * <p><b>Design notes.</b> Every outcome marks one attempt, so the set is on the hot path, and it
 * holds what it is given for minutes: a cache (as this was) allocated a node, a map node, a boxed
 * key and a write task per mark, about 128 bytes, and held about 125 per entry. Here each stripe
 * keeps its marks in the order made (fingerprint and time) in a queue of fixed-size chunks, which
 * expiry and the size bound pop from the oldest end, and an open-addressing index (linear probing)
 * from fingerprint to the address of its newest mark. Marking an attempt again (a close that lost
 * to another) appends a second mark and points the index at it; the older mark, when popped, is
 * not the one indexed and removes nothing. Chunks emptied at the old end are reused at the new
 * end and the index never shrinks, so allocation stops once the set has held its most entries: a
 * mark's 16 bytes once while the set grows, the index's 4-8 bytes per entry when it doubles, and
 * nothing after. Fingerprint 0 is stored as 1 (0 marks an empty slot): one more collision, which
 * can only turn an unknown attempt into a duplicate.
 *
 * <p>Expiry is as the cache's was: an entry is invisible from its expiry on, and is taken out by the
 * next mark of its stripe or by {@link #cleanUp}.
 *
 * <p>Thread-safety: thread-safe; {@value #STRIPES} stripes by the fingerprint's top bits, each under
 * its own monitor.
 */
final class ClosedAttempts {
  /** Stripes; a power of two. */
  static final int STRIPES = 16;
  /** Marks per chunk; a power of two. */
  static final int CHUNK = 512;

  private final Ticker ticker;
  private final long ttlNanos;
  private final int maxPerStripe;
  private final Stripe[] stripes = new Stripe[STRIPES];

  /**
   * @param ttl how long after its last mark an attempt is remembered, in nanoseconds
   * @param maxRemembered the most remembered at once (split evenly between the stripes)
   */
  ClosedAttempts(Ticker ticker, long ttl, int maxRemembered) {
    this.ticker = ticker;
    this.ttlNanos = ttl;
    this.maxPerStripe = Math.max(1, maxRemembered / STRIPES);
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new Stripe();
    }
  }

  /** {@value #CHUNK} marks; its id makes a mark's address {@code id * CHUNK + offset}. */
  private static final class Chunk {
    final long[] keys = new long[CHUNK];
    final long[] markedAt = new long[CHUNK];
    final int id;
    Chunk next;

    Chunk(int id) {
      this.id = id;
    }
  }

  private static final class Stripe {
    /** Open addressing: a mark's address + 1, 0 for an empty slot. */
    @GuardedBy("this")
    int[] index = new int[16];
    @GuardedBy("this")
    int count;
    /** Every chunk allocated, by id. */
    @GuardedBy("this")
    Chunk[] chunks = new Chunk[4];
    @GuardedBy("this")
    int chunkCount;
    /** The queue of marks: from {@code oldest[oldestOffset]} to before {@code newest[newestOffset]}. */
    @GuardedBy("this")
    Chunk oldest;
    @GuardedBy("this")
    int oldestOffset;
    @GuardedBy("this")
    Chunk newest;
    @GuardedBy("this")
    int newestOffset;
    @GuardedBy("this")
    int marks;
    /** Emptied chunks, for reuse. */
    @GuardedBy("this")
    Chunk spare;
  }

  /** Remembers {@code fingerprint} as closed now. */
  void add(long fingerprint) {
    long key = fingerprint == 0 ? 1 : fingerprint;
    long now = ticker.read();
    Stripe s = stripe(key);
    synchronized (s) {
      expire(s, now);
      if (s.marks == 2 * maxPerStripe) {
        // at the queue's bound (older marks of attempts marked again fill the rest)
        pop(s);
      }
      int i = slot(s, key);
      if (s.index[i] == 0) {
        if (s.count + 1 > s.index.length >>> 1) {
          growIndex(s);
          i = slot(s, key);
        }
        s.count++;
      }
      s.index[i] = append(s, key, now) + 1;
      while (s.count > maxPerStripe) {
        pop(s);
      }
    }
  }

  /** Whether {@code fingerprint} was marked within the time remembered. */
  boolean contains(long fingerprint) {
    long key = fingerprint == 0 ? 1 : fingerprint;
    long now = ticker.read();
    Stripe s = stripe(key);
    synchronized (s) {
      int a = s.index[slot(s, key)] - 1;
      return a >= 0 && now - s.chunks[a / CHUNK].markedAt[a % CHUNK] < ttlNanos;
    }
  }

  /** Forgets every expired entry now. */
  void cleanUp() {
    long now = ticker.read();
    for (Stripe s : stripes) {
      synchronized (s) {
        expire(s, now);
      }
    }
  }

  /** Entries held, counting any expired that have not been taken out yet. */
  long size() {
    long n = 0;
    for (Stripe s : stripes) {
      synchronized (s) {
        n += s.count;
      }
    }
    return n;
  }

  private Stripe stripe(long key) {
    return stripes[(int) (key >>> 60) & (STRIPES - 1)];
  }

  @GuardedBy("s")
  private void expire(Stripe s, long now) {
    while (s.marks > 0 && now - s.oldest.markedAt[s.oldestOffset] >= ttlNanos) {
      pop(s);
    }
  }

  /** Appends a mark at the new end of the queue; returns its address. */
  @GuardedBy("s")
  private static int append(Stripe s, long key, long now) {
    if (s.newest == null || s.newestOffset == CHUNK) {
      Chunk c = s.spare;
      if (c != null) {
        s.spare = c.next;
        c.next = null;
      } else {
        if (s.chunkCount == s.chunks.length) {
          s.chunks = Arrays.copyOf(s.chunks, s.chunks.length * 2);
        }
        c = new Chunk(s.chunkCount);
        s.chunks[s.chunkCount++] = c;
      }
      if (s.newest == null) {
        s.oldest = c;
        s.oldestOffset = 0;
      } else {
        s.newest.next = c;
      }
      s.newest = c;
      s.newestOffset = 0;
    }
    Chunk c = s.newest;
    c.keys[s.newestOffset] = key;
    c.markedAt[s.newestOffset] = now;
    s.marks++;
    return c.id * CHUNK + s.newestOffset++;
  }

  /** Pops the oldest mark; removes its entry if it is the entry's newest mark. */
  @GuardedBy("s")
  private static void pop(Stripe s) {
    Chunk c = s.oldest;
    int address = c.id * CHUNK + s.oldestOffset;
    long key = c.keys[s.oldestOffset];
    s.oldestOffset++;
    s.marks--;
    if (s.marks == 0) {
      // empty: the one chunk left starts over
      s.oldest = null;
      s.newest = null;
      c.next = s.spare;
      s.spare = c;
    } else if (s.oldestOffset == CHUNK) {
      s.oldest = c.next;
      s.oldestOffset = 0;
      c.next = s.spare;
      s.spare = c;
    }
    int i = slot(s, key);
    if (s.index[i] == address + 1) {
      removeAt(s, i);
      s.count--;
    }
  }

  private static long keyAt(Stripe s, int entry) {
    int a = entry - 1;
    return s.chunks[a / CHUNK].keys[a % CHUNK];
  }

  /** The key's slot, or the empty slot where it would go. */
  @GuardedBy("s")
  private static int slot(Stripe s, long key) {
    int mask = s.index.length - 1;
    int i = (int) key & mask;
    while (s.index[i] != 0 && keyAt(s, s.index[i]) != key) {
      i = (i + 1) & mask;
    }
    return i;
  }

  /** Backward-shift deletion: the probe sequences of the entries after {@code i} stay unbroken. */
  @GuardedBy("s")
  private static void removeAt(Stripe s, int i) {
    int mask = s.index.length - 1;
    int j = i;
    while (true) {
      j = (j + 1) & mask;
      int e = s.index[j];
      if (e == 0) {
        break;
      }
      int home = (int) keyAt(s, e) & mask;
      if (((j - home) & mask) >= ((j - i) & mask)) {
        s.index[i] = e;
        i = j;
      }
    }
    s.index[i] = 0;
  }

  @GuardedBy("s")
  private static void growIndex(Stripe s) {
    int[] old = s.index;
    s.index = new int[old.length * 2];
    for (int e : old) {
      if (e != 0) {
        s.index[slot(s, keyAt(s, e))] = e;
      }
    }
  }
}
