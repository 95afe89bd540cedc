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
 * mark's 16 bytes once while the set grows, the index's 8-16 bytes per entry when it doubles, and
 * nothing after. Fingerprint 0 is stored as 1 (0 marks an empty slot): one more collision, which
 * can only turn an unknown attempt into a duplicate.
 *
 * <p>An index entry holds the fingerprint's low 32 bits beside the mark's address. The marks are
 * megabytes at the bound, so reading a mark is a cache miss: with the address alone, every probe
 * read one (about five per close: the new fingerprint's probes, the popped one's, and the
 * backward shift's home slots; in JFR samples a twelfth of a route-and-outcome at the bound).
 * Now a probe reads a mark only when those 32 bits match, and deletion and growth, which need only
 * an entry's home slot, read none (a route-and-outcome measured 3-8% faster); the price is 4 bytes
 * per index slot.
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
    /**
     * Open addressing: the fingerprint's low 32 bits (its home slot's bits among them) in the high
     * half, its newest mark's address + 1 in the low half; 0 for an empty slot.
     */
    @GuardedBy("this")
    long[] index = new long[16];
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
    add(fingerprint, ticker.read());
  }

  /** Remembers {@code fingerprint} as closed at {@code now}, a reading of this set's ticker. */
  void add(long fingerprint, long now) {
    long key = fingerprint == 0 ? 1 : fingerprint;
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
      s.index[i] = entry(key, append(s, key, now));
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
      int a = (int) s.index[slot(s, key)] - 1;
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
    if ((int) s.index[i] == address + 1) {
      removeAt(s, i);
      s.count--;
    }
  }

  /** The index entry of {@code key}'s mark at {@code address}. */
  private static long entry(long key, int address) {
    return (key << 32) | (address + 1);
  }

  /** The low 32 bits of the fingerprint an index entry holds (its home slot's bits among them). */
  private static int low(long entry) {
    return (int) (entry >>> 32);
  }

  /** The full fingerprint of the mark an index entry points at: a read of the marks. */
  @GuardedBy("s")
  private static long keyAt(Stripe s, long entry) {
    int a = (int) entry - 1;
    return s.chunks[a / CHUNK].keys[a % CHUNK];
  }

  /** The key's slot, or the empty slot where it would go. */
  @GuardedBy("s")
  private static int slot(Stripe s, long key) {
    int mask = s.index.length - 1;
    int low = (int) key;
    int i = low & mask;
    long e;
    // the mark is read only when the index's 32 bits match (see the class notes)
    while ((e = s.index[i]) != 0 && (low(e) != low || keyAt(s, e) != key)) {
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
      long e = s.index[j];
      if (e == 0) {
        break;
      }
      int home = low(e) & mask;
      if (((j - home) & mask) >= ((j - i) & mask)) {
        s.index[i] = e;
        i = j;
      }
    }
    s.index[i] = 0;
  }

  @GuardedBy("s")
  private static void growIndex(Stripe s) {
    long[] old = s.index;
    s.index = new long[old.length * 2];
    int mask = s.index.length - 1;
    for (long e : old) {
      if (e != 0) {
        // the entries are distinct: each goes to the first empty slot from its home
        int i = low(e) & mask;
        while (s.index[i] != 0) {
          i = (i + 1) & mask;
        }
        s.index[i] = e;
      }
    }
  }
}
