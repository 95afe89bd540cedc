package io.github.kvroute.core;

/**
 * A command's keys resolved to arena positions, and split into groups that are consecutive in the
 * arena (a stretch of a prompt stored side by side): a command touches or removes whole groups, run
 * by run, instead of one key at a time.
 *
 * <p>Not thread-safe: the prefix index's single writer's scratch.
 */
final class KeyGroups {
  private final RunTable table;
  /** Arena positions of the keys a command walks (grown as needed). */
  private int[] at = new int[64];
  /** Keys a command collects before resolving them (grown as needed). */
  private long[] keys = new long[64];

  KeyGroups(RunTable table) {
    this.table = table;
  }

  /** Largest scratch kept between commands; a larger one is dropped by {@link #trim}. */
  static final int KEPT = 1_024;

  /** Drops a scratch array grown past {@link #KEPT} by a large command, so it is not retained. */
  void trim() {
    if (at.length > KEPT) {
      at = new int[64];
    }
    if (keys.length > KEPT) {
      keys = new long[64];
    }
  }

  /** Bytes of the scratch arrays, from their actual lengths. */
  long scratchBytes() {
    return 4L * at.length + 8L * keys.length;
  }

  /**
   * A scratch array of at least {@code count} keys for a command to collect keys in before
   * {@link #resolve} (a rollback's still-unchanged blocks), so that the command allocates nothing
   * once the array has grown; valid until the next call.
   */
  long[] keyScratch(int count) {
    if (keys.length < count) {
      keys = new long[Math.max(count, keys.length * 2)];
    }
    return keys;
  }

  /** The arena position of key {@code i} of the last {@link #resolve}, -1 if unknown. */
  int at(int i) {
    return at[i];
  }

  /**
   * Fills {@link #at} with the arena position of each of the first {@code count} keys, -1 for an
   * unknown key unless {@code append}, which appends unknown keys (a prompt's new blocks side by
   * side, in its order, so that they form one run). A key that follows its predecessor in the arena
   * is found by one comparison, not a probe.
   */
  void resolve(long[] keys, int count, boolean append) {
    if (at.length < count) {
      at = new int[Math.max(count, at.length * 2)];
    }
    int prev = -1;
    for (int i = 0; i < count; i++) {
      long k = keys[i];
      int b;
      if (prev >= 0 && prev + 1 < table.blockTop() && table.key(prev + 1) == k) {
        b = prev + 1;
      } else {
        b = table.find(k);
        if (b < 0 && append) {
          b = table.append(k, prev >= 0 ? table.runOf(prev) : -1);
        }
      }
      at[i] = b;
      prev = b;
    }
  }

  /** Where the arena-consecutive group of keys ending at {@code i} starts. */
  int groupStart(int i) {
    int j = i;
    while (j > 0 && at[j - 1] >= 0 && at[j - 1] == at[j] - 1) {
      j--;
    }
    return j;
  }
}
