package io.github.kvroute.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The {@link RunTable}'s key table: block key to arena position, open-addressed with linear
 * probing in one {@code long[]}.
 *
 * <h2>Design notes</h2>
 * An entry packs the high half of the key's spread hash (its fingerprint) with the key's arena
 * position plus one (0 is an empty position), so a probe reads one array and only a fingerprint hit
 * reads the arena. A key's home position is its fingerprint scaled to the table's length, any length
 * (not only powers of two, so the table can be sized exactly to the run table's memory bound), and
 * an entry therefore names its own home: rebuilding a table at another length ({@link #rebuilt})
 * reads no key. Taken in the old table's order, which follows the homes' order up to a cluster's
 * length (bar the wrap-around), the new homes ascend too, so a rebuild writes in order.
 *
 * <p>Readers probe with acquire loads ({@link #find}); the writer adds to a published table with a
 * release store ({@link #put}) after the block's key, and fills a table no reader has yet with plain
 * stores ({@link #place}).
 *
 * <p>A compaction may empty a published table and fill it again ({@link RunTable#compact}): a reader
 * probing meanwhile can miss a key, never take another key's position for its own, which
 * {@link #find} checks in the arena; the run table brackets the refill so that walks can tell. A
 * table never holds more entries than half its length, so a probe ends at an empty position, and
 * {@link #find} bounds its probes by the table's length besides.
 *
 * <p>Thread-safety: stateless; the arrays' discipline is the {@link RunTable}'s.
 */
final class KeyTable {
  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  /** The high half of an entry: the high half of the key's spread hash. */
  static final long FINGERPRINT = 0xFFFF_FFFF_0000_0000L;
  /** Below this many keys {@link #fill} places them directly. */
  static final int PARTITION_MIN = 1 << 14;
  /** At most this many leading fingerprint bits partition {@link #fill}'s keys. */
  static final int MAX_PARTITION_BITS = 14;

  private KeyTable() {}

  static long spread(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 29);
  }

  /** The entry of {@code key} at arena position {@code b}. */
  static long entry(long key, int b) {
    return (spread(key) & FINGERPRINT) | (b + 1L);
  }

  /**
   * The home position, in a table of {@code length} positions, of an entry whose fingerprint (high
   * half) is {@code fp}: the fingerprint scaled to the length, so the entry alone names it.
   */
  static int home(long fp, int length) {
    return (int) (((fp >>> 32) * length) >>> 32);
  }

  /**
   * The arena position holding {@code key} in {@code table} over {@code arena} (key of block
   * {@code b} at {@code 2b}, {@code blocks} positions), or -1; acquire loads, any thread.
   */
  static int find(long[] table, long[] arena, int blocks, long key) {
    long fp = spread(key) & FINGERPRINT;
    int length = table.length;
    for (int i = home(fp, length), probes = length; probes > 0; i = i + 1 == length ? 0 : i + 1) {
      long e = (long) LONGS.getAcquire(table, i);
      if (e == 0) {
        return -1;
      }
      if ((e & FINGERPRINT) == fp) {
        int b = (int) e - 1;
        if (b < blocks && (long) LONGS.getAcquire(arena, 2 * b) == key) {
          return b;
        }
      }
      probes--;
    }
    // only a reader racing a refill could see no empty position at all
    return -1;
  }

  /**
   * Loads the position where a probe for {@code key} starts and returns it, a value of no meaning
   * for the caller to keep: issued ahead of the probe, its cache miss overlaps the caller's others.
   */
  static long touch(long[] table, long key) {
    return table[home(spread(key) & FINGERPRINT, table.length)];
  }

  /** Adds entry {@code e} to a published table (the writer): a release store. */
  static void put(long[] table, long e) {
    int length = table.length;
    int i = home(e & FINGERPRINT, length);
    while (table[i] != 0) {
      i = i + 1 == length ? 0 : i + 1;
    }
    LONGS.setRelease(table, i, e);
  }

  /** Adds entry {@code e} to a table no reader has yet: a plain store. */
  static void place(long[] table, long e) {
    int length = table.length;
    int i = home(e & FINGERPRINT, length);
    while (table[i] != 0) {
      i = i + 1 == length ? 0 : i + 1;
    }
    table[i] = e;
  }

  /**
   * Places the entries of the {@code blocks} keys of {@code arena} (key of block {@code b} at
   * {@code 2b}) in an empty {@code table} no reader has yet. Placed in the arena's order the
   * entries land at random, a cache miss each in a table of megabytes; so past
   * {@value #PARTITION_MIN} keys they are first partitioned by the stretch of the table their
   * homes fall in (a counting sort by the fingerprint's leading bits, 64 to 128 keys a stretch),
   * and each stretch is then filled while it stays in cache: a whole compaction of a million live
   * blocks took 35 ms placing them in arena order, 21-25 ms this way. The cost is a scratch array
   * of 8 bytes per key for the length of the call. Within a stretch the entries go in arena order,
   * so the table is the one arena order builds unless a probe sequence crosses a stretch's end,
   * and then holds the same entries in another order along that sequence.
   */
  static void fill(long[] table, long[] arena, int blocks) {
    if (blocks < PARTITION_MIN) {
      for (int b = 0; b < blocks; b++) {
        place(table, entry(arena[2 * b], b));
      }
      return;
    }
    int bits = Math.min(MAX_PARTITION_BITS, 31 - Integer.numberOfLeadingZeros(blocks >>> 6));
    int[] start = new int[(1 << bits) + 1];
    for (int b = 0; b < blocks; b++) {
      start[(int) (spread(arena[2 * b]) >>> (64 - bits)) + 1]++;
    }
    for (int i = 0; i < 1 << bits; i++) {
      start[i + 1] += start[i];
    }
    long[] sorted = new long[blocks];
    for (int b = 0; b < blocks; b++) {
      long e = entry(arena[2 * b], b);
      sorted[start[(int) (e >>> (64 - bits))]++] = e;
    }
    for (long e : sorted) {
      place(table, e);
    }
  }

  /** A table of {@code length} positions with the entries of {@code old}. */
  static long[] rebuilt(long[] old, int length) {
    long[] t = new long[length];
    for (long e : old) {
      if (e != 0) {
        place(t, e);
      }
    }
    return t;
  }
}
