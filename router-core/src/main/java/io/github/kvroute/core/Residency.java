package io.github.kvroute.core;

/**
 * Which slot holds which run, kept consistent across the {@link RunTable} (holder bits, read by
 * routing) and the {@link RunEntries} (ticks and recency, the writer's own): every change to what a
 * slot holds goes through here as whole runs.
 *
 * <h2>Design notes</h2>
 * Two invariants make one entry per (slot, run) exact: every block of a run has the same holders,
 * and each holder's ticks along the run are consecutive, falling by one per block. A change to part
 * of a run first {@link #cut cuts} the run at the part's edges, which splits each holder's entry in
 * two (the deeper part keeps the older ticks, so it goes just older in the slot's list); the change
 * then applies to whole runs. After a change, neighbouring runs whose holders agree and whose ticks
 * continue are {@link #tryMerge merged} back, so a prefix touched again block by block, or trimmed
 * one block at a time, does not leave a run per block behind. Runs therefore stay as long as the
 * holders' histories allow: a run boundary exists only where some holder's set or recency really
 * changes.
 *
 * <p>Not thread-safe: owned by the prefix index's single writer.
 */
final class Residency {
  final RunTable table;
  final RunEntries entries;

  Residency(RunTable table, RunEntries entries) {
    this.table = table;
    this.entries = entries;
  }

  /**
   * Cuts runs so that the blocks {@code [max(run start, low), cur]} are one run, the run of block
   * {@code cur}; returns it.
   */
  int piece(int cur, int low) {
    cut(cur + 1);
    cut(Math.max(table.start(table.runOf(cur)), low));
    return table.runOf(cur);
  }

  /** Makes {@code b} the first block of its run (a no-op at a run boundary or the arena's ends). */
  void cut(int b) {
    int fresh = table.splitAt(b);
    if (fresh < 0) {
      return;
    }
    boolean freshIsLeft = table.end(fresh) == b;
    int other = table.runOf(freshIsLeft ? b : b - 1);
    int stride = table.stride();
    for (int w = 0; w < stride; w++) {
      for (long bits = table.word(fresh, w); bits != 0; bits &= bits - 1) {
        int s = (w << 6) + Long.numberOfTrailingZeros(bits);
        int e = entries.find(other, s);
        long t = entries.tick(e);
        if (freshIsLeft) {
          // the left part keeps the first ticks; the right part's first block is b
          entries.addNewer(e, fresh, t);
          entries.setTick(e, t - table.length(fresh));
        } else {
          entries.addOlder(e, fresh, t - table.length(other));
        }
      }
    }
  }

  /** Merges the runs on either side of {@code b} if their holders agree and their ticks continue. */
  void tryMerge(int b) {
    if (b <= 0 || b >= table.blockTop()) {
      return;
    }
    int left = table.runOf(b - 1);
    int right = table.runOf(b);
    if (left == right || !table.sameHolders(left, right)) {
      return;
    }
    int stride = table.stride();
    int leftLength = table.length(left);
    for (int w = 0; w < stride; w++) {
      for (long bits = table.word(left, w); bits != 0; bits &= bits - 1) {
        int s = (w << 6) + Long.numberOfTrailingZeros(bits);
        if (entries.tick(entries.find(right, s)) != entries.tick(entries.find(left, s)) - leftLength) {
          return;
        }
      }
    }
    int gone = table.merge(left, right);
    for (int w = 0; w < stride; w++) {
      for (long bits = table.word(gone, w); bits != 0; bits &= bits - 1) {
        int s = (w << 6) + Long.numberOfTrailingZeros(bits);
        int el = entries.find(left, s);
        int er = entries.find(right, s);
        if (gone == left) {
          entries.setTick(er, entries.tick(el));
          entries.remove(el);
        } else {
          entries.remove(er);
        }
      }
    }
  }

  /** Tries to merge at every run boundary in {@code [low, high]}, from the deepest. */
  void mergeWithin(int low, int high) {
    int b = Math.min(high, table.blockTop());
    while (true) {
      tryMerge(b);
      if (b <= low || b <= 0) {
        return;
      }
      b = Math.max(low, table.start(table.runOf(b - 1)));
    }
  }

  /** Whether {@code slot} holds block {@code b}. */
  boolean holds(int slot, int b) {
    return table.holds(table.runOf(b), slot);
  }

  /** The tick of {@code slot}'s last touch of block {@code b}, or -1 if it does not hold it. */
  long tickOf(int slot, int b) {
    int r = table.runOf(b);
    if (!table.holds(r, slot)) {
      return -1;
    }
    return entries.tick(entries.find(r, slot)) - (b - table.start(r));
  }

  /** The tick of {@code slot}'s least recent block, or {@code Long.MAX_VALUE} when it holds none. */
  long tailTick(int slot) {
    int e = entries.tail(slot);
    return e == RunEntries.NIL ? Long.MAX_VALUE : entries.tick(e) - table.length(entries.run(e)) + 1;
  }

  /** {@code slot} now holds run {@code r}, most recently, its first block at tick {@code t}. */
  void add(int r, int slot, long t) {
    table.addHolder(r, slot);
    entries.addHead(r, slot, t);
  }

  /** {@code slot} touched the run it holds, {@code r}, again: its first block at tick {@code t}. */
  void retouch(int r, int slot, long t) {
    entries.moveToHead(entries.find(r, slot), t);
  }

  /** Blocks in {@code [from, to)} that no slot holds. */
  long deadBlocks(int from, int to) {
    long n = 0;
    for (int b = from; b < to; ) {
      int r = table.runOf(b);
      int e = Math.min(table.end(r), to);
      if (!table.anyHolder(r)) {
        n += e - b;
      }
      b = e;
    }
    return n;
  }

  /**
   * Adds {@code slot} to every run in {@code [from, to)} (which it does not hold), deepest first,
   * block {@code from} at tick {@code first}; returns the blocks added.
   */
  int addRange(int slot, int from, int to, long first) {
    cut(to);
    cut(from);
    for (int b = to; b > from; ) {
      int r = table.runOf(b - 1);
      int start = table.start(r);
      add(r, slot, first - (start - from));
      b = start;
    }
    return to - from;
  }

  /** {@code slot} no longer holds run {@code r}; returns the blocks it dropped. */
  int drop(int r, int slot) {
    entries.remove(entries.find(r, slot));
    table.removeHolder(r, slot);
    return table.length(r);
  }

  /** Drops the {@code n} least recent blocks of {@code slot} (at most its tail run's length). */
  int dropTail(int slot, int n) {
    int r = entries.run(entries.tail(slot));
    int end = table.end(r);
    int from = end - Math.min(n, table.length(r));
    cut(from);
    int dropped = drop(table.runOf(from), slot);
    mergeWithin(from, end);
    return dropped;
  }

  /** Drops the most recent run of {@code slot}; returns its blocks, 0 if it held none. */
  int dropHead(int slot) {
    int e = entries.head(slot);
    if (e == RunEntries.NIL) {
      return 0;
    }
    int r = entries.run(e);
    int start = table.start(r);
    int end = table.end(r);
    int dropped = drop(r, slot);
    mergeWithin(start, end);
    return dropped;
  }

  /**
   * Compacts the table as its garbage calls for ({@link RunTable#compactAsDue(boolean)}, rewriting
   * published arrays only if {@code inPlace}), renumbering the entries' runs.
   */
  void compact(boolean inPlace) {
    entries.renumberRuns(table.compactAsDue(inPlace));
  }

  /** Gives back the entries' arrays' room when most of it is unused. */
  void shrinkIfSparse() {
    entries.shrinkIfSparse();
  }
}
