package io.github.kvroute.core;

import java.util.Arrays;

/**
 * Per-replica residency on runs: one entry per (run, slot) the slot holds, with the tick of the
 * run's first block, and per slot a recency list of its entries. Block {@code j} of an entry's run
 * was last touched at {@code tick - j}: a touch always covers whole runs deepest block first, so
 * the ticks inside one run are consecutive and one number stands for all of them.
 *
 * <h2>Design notes</h2>
 * Because each slot's entries cover disjoint tick ranges, ordering them by their first tick orders
 * their blocks too: the tail entry's last block is the slot's least recent block, and evicting it
 * (or the last {@code n} blocks) is a split of that run, not a search. Entries live in parallel
 * primitive arrays with a free list; (run, slot) -> entry is an open-addressed table of entry
 * numbers (linear probing, deletion by backward shift, so no tombstones), which is how a run's
 * split or merge finds each holder's entry.
 *
 * <p>Memory is per (slot, run), not per (slot, block): 24 bytes of entry arrays and two to four
 * 4-byte map positions for a run of any length. The arrays grow by a quarter, the map doubles at
 * half full, and {@link #shrinkIfSparse} rebuilds both when removals left them over
 * {@code 1.5 x} and {@code 4 x} the live entries: between commands they hold at most
 * {@code 36 + 16 = 52} bytes per entry plus a fixed {@code 528}.
 *
 * <p>Not thread-safe: owned by the prefix index's single writer; readers never look at it.
 */
final class RunEntries {
  static final int NIL = -1;
  private static final int MIN_ENTRIES = 16;

  private int[] run = new int[MIN_ENTRIES];
  private int[] slot = new int[MIN_ENTRIES];
  private long[] tick = new long[MIN_ENTRIES];
  private int[] prev = new int[MIN_ENTRIES];
  private int[] next = new int[MIN_ENTRIES];
  /** Entry number + 1 per position, 0 empty. */
  private int[] table = new int[2 * MIN_ENTRIES];
  private int free = NIL;
  private int allocated;
  private int size;

  private int[] head = new int[0];
  private int[] tail = new int[0];

  int size() {
    return size;
  }

  int run(int e) {
    return run[e];
  }

  int slot(int e) {
    return slot[e];
  }

  /** Tick of the first block of {@code e}'s run. */
  long tick(int e) {
    return tick[e];
  }

  void setTick(int e, long t) {
    tick[e] = t;
  }

  int head(int s) {
    return s < head.length ? head[s] : NIL;
  }

  int tail(int s) {
    return s < tail.length ? tail[s] : NIL;
  }

  /** The next less recent entry of the same slot, or NIL. */
  int older(int e) {
    return next[e];
  }

  int newer(int e) {
    return prev[e];
  }

  /** The entry of (r, s), or NIL. */
  int find(int r, int s) {
    int mask = table.length - 1;
    for (int i = hash(r, s) & mask; ; i = (i + 1) & mask) {
      int v = table[i];
      if (v == 0) {
        return NIL;
      }
      int e = v - 1;
      if (run[e] == r && slot[e] == s) {
        return e;
      }
    }
  }

  /** A new entry (r, s) at tick {@code t}, most recent of its slot. */
  int addHead(int r, int s, long t) {
    int e = allocate(r, s, t);
    linkHead(e);
    return e;
  }

  /** A new entry (r, s) at tick {@code t}, placed just older than {@code e} in its slot's list. */
  int addOlder(int e, int r, long t) {
    int n = allocate(r, slot[e], t);
    int o = next[e];
    prev[n] = e;
    next[n] = o;
    next[e] = n;
    if (o != NIL) {
      prev[o] = n;
    } else {
      tail[slot[e]] = n;
    }
    return n;
  }

  /** A new entry (r, s) at tick {@code t}, placed just newer than {@code e} in its slot's list. */
  int addNewer(int e, int r, long t) {
    int n = allocate(r, slot[e], t);
    int p = prev[e];
    next[n] = e;
    prev[n] = p;
    prev[e] = n;
    if (p != NIL) {
      next[p] = n;
    } else {
      head[slot[e]] = n;
    }
    return n;
  }

  /** Marks {@code e} most recent of its slot at tick {@code t}. */
  void moveToHead(int e, long t) {
    tick[e] = t;
    if (head[slot[e]] != e) {
      unlink(e);
      linkHead(e);
    }
  }

  void remove(int e) {
    tableRemove(e);
    unlink(e);
    next[e] = free;
    free = e;
    size--;
  }

  /** Renumbers every entry's run after a compaction ({@code renumber[old]}; every run kept). */
  void renumberRuns(int[] renumber) {
    Arrays.fill(table, 0);
    for (int s = 0; s < head.length; s++) {
      for (int e = head[s]; e != NIL; e = next[e]) {
        run[e] = renumber[run[e]];
        tablePut(e);
      }
    }
  }

  /**
   * Rebuilds the arrays for {@code size} entries when they hold more than {@code 1.5 x size + 16}
   * entries or the map more than {@code max(32, 4 x size + 4)} positions, so the memory follows the
   * live entries down and stays within {@link PrefixIndex#ENTRY_BYTES} per entry (entry numbers
   * change: only between commands).
   */
  void shrinkIfSparse() {
    if (run.length <= size + size / 2 + MIN_ENTRIES
        && table.length <= Math.max(2 * MIN_ENTRIES, 4L * size + 4)) {
      return;
    }
    int n = size + size / 4 + MIN_ENTRIES;
    int[] r = new int[n];
    int[] sl = new int[n];
    long[] t = new long[n];
    int[] p = new int[n];
    int[] nx = new int[n];
    int count = 0;
    for (int s = 0; s < head.length; s++) {
      int last = NIL;
      for (int e = head[s]; e != NIL; e = next[e]) {
        r[count] = run[e];
        sl[count] = s;
        t[count] = tick[e];
        p[count] = last;
        if (last != NIL) {
          nx[last] = count;
        } else {
          head[s] = count;
        }
        last = count++;
      }
      if (last != NIL) {
        nx[last] = NIL;
      }
      tail[s] = last;
    }
    run = r;
    slot = sl;
    tick = t;
    prev = p;
    next = nx;
    allocated = count;
    free = NIL;
    int length = MIN_ENTRIES * 2;
    while (length < 2L * count + 2) {
      length <<= 1;
    }
    table = new int[length];
    for (int e = 0; e < count; e++) {
      tablePut(e);
    }
  }

  /** Bytes held by the arrays, from their actual lengths (headers not included). */
  long arrayBytes() {
    return run.length * (4L + 4 + 8 + 4 + 4) + 4L * table.length + 8L * head.length;
  }

  /** Bytes of the per-slot list heads and tails, from their actual lengths. */
  long slotArrayBytes() {
    return 8L * head.length;
  }

  // ---------------------------------------------------------------------------------- private

  private static int hash(int r, int s) {
    long h = (((long) r << 32) | (s & 0xFFFF_FFFFL)) * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  private int allocate(int r, int s, long t) {
    int e;
    if (free != NIL) {
      e = free;
      free = next[e];
    } else {
      if (allocated == run.length) {
        int n = run.length + Math.max(MIN_ENTRIES, run.length / 4);
        run = Arrays.copyOf(run, n);
        slot = Arrays.copyOf(slot, n);
        tick = Arrays.copyOf(tick, n);
        prev = Arrays.copyOf(prev, n);
        next = Arrays.copyOf(next, n);
      }
      e = allocated++;
    }
    if (s >= head.length) {
      int old = head.length;
      int n = Math.max(s + 1, old * 2);
      head = Arrays.copyOf(head, n);
      tail = Arrays.copyOf(tail, n);
      Arrays.fill(head, old, n, NIL);
      Arrays.fill(tail, old, n, NIL);
    }
    run[e] = r;
    slot[e] = s;
    tick[e] = t;
    size++;
    if (size * 2L > table.length) {
      int[] old = table;
      table = new int[old.length * 2];
      for (int v : old) {
        if (v != 0) {
          tablePut(v - 1);
        }
      }
    }
    tablePut(e);
    return e;
  }

  private void tablePut(int e) {
    int mask = table.length - 1;
    int i = hash(run[e], slot[e]) & mask;
    while (table[i] != 0) {
      i = (i + 1) & mask;
    }
    table[i] = e + 1;
  }

  /** Deletes {@code e}'s position and shifts back the positions its probe sequence covered. */
  private void tableRemove(int e) {
    int mask = table.length - 1;
    int i = hash(run[e], slot[e]) & mask;
    while (table[i] != e + 1) {
      i = (i + 1) & mask;
    }
    int hole = i;
    for (int j = (hole + 1) & mask; table[j] != 0; j = (j + 1) & mask) {
      int want = hash(run[table[j] - 1], slot[table[j] - 1]) & mask;
      // move j into the hole unless its wanted position lies cyclically in (hole, j]
      boolean stays = hole <= j ? (want > hole && want <= j) : (want > hole || want <= j);
      if (!stays) {
        table[hole] = table[j];
        table[j] = 0;
        hole = j;
      }
    }
    table[hole] = 0;
  }

  private void linkHead(int e) {
    int s = slot[e];
    prev[e] = NIL;
    next[e] = head[s];
    if (head[s] != NIL) {
      prev[head[s]] = e;
    }
    head[s] = e;
    if (tail[s] == NIL) {
      tail[s] = e;
    }
  }

  private void unlink(int e) {
    int s = slot[e];
    int p = prev[e];
    int n = next[e];
    if (p != NIL) {
      next[p] = n;
    } else {
      head[s] = n;
    }
    if (n != NIL) {
      prev[n] = p;
    } else {
      tail[s] = p;
    }
  }
}
