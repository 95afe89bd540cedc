package io.github.kvroute.core;

import java.util.Arrays;

/**
 * A command's keys resolved to arena positions, and split into groups that are consecutive in the
 * arena (a stretch of a prompt stored side by side): a command touches or removes whole groups, run
 * by run, instead of one key at a time.
 *
 * <p>Not thread-safe: the prefix index's single writer's scratch.
 */
final class KeyGroups {
  private final RunTable table;
  /**
   * Per group {@code g} of the last {@link #resolve}: the index of its first key, and that key's
   * arena position (-1 for a group of unknown keys); {@code first[groups]} is the key count. Grown
   * as needed: a command has at most one group per key, typically one per stretch of its prompt.
   */
  private int[] first = new int[64];
  private int[] at = new int[64];
  /** Keys whose table positions {@link #resolve} loads at once past an unknown key. */
  static final int LOOKAHEAD = 16;
  /** Where {@link #resolve} keeps what {@link RunTable#touch} returns, so the loads are done. */
  private long touched;
  /** Keys a command collects before resolving them (grown as needed). */
  private long[] keys = new long[64];

  KeyGroups(RunTable table) {
    this.table = table;
  }

  /** Largest scratch kept between commands, in keys; a larger one is dropped by {@link #trim}. */
  static final int KEPT = 1_024;
  /**
   * Largest group scratch kept between commands, in groups: two int arrays of this length hold at
   * most the {@code 4 x KEPT} bytes the budget's accounting reserves for the scratch.
   */
  static final int KEPT_GROUPS = KEPT / 2 - 1;

  /** Drops a scratch array grown past {@link #KEPT} by a large command, so it is not retained. */
  void trim() {
    if (first.length > KEPT_GROUPS + 1) {
      first = new int[64];
      at = new int[64];
    }
    if (keys.length > KEPT) {
      keys = new long[64];
    }
  }

  /** Bytes of the scratch arrays, from their actual lengths. */
  long scratchBytes() {
    return 4L * (first.length + at.length) + 8L * keys.length;
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

  /** The arena position of group {@code g}'s first key, -1 for a group of unknown keys. */
  int at(int g) {
    return at[g];
  }

  /** The keys in group {@code g}: its arena positions are {@code [at(g), at(g) + length(g))}. */
  int length(int g) {
    return first[g + 1] - first[g];
  }

  /**
   * Resolves the first {@code count} keys to arena positions and splits them into groups of keys at
   * consecutive positions, in key order; returns the number of groups. An unknown key is left out
   * (in a group at -1) unless {@code append}, which appends unknown keys (a prompt's new blocks side
   * by side, in its order, so that they form one run and one group). A key that follows its
   * predecessor in the arena is found by one comparison, not a probe: within a group the keys are
   * compared with the arena's in one tight loop ({@link RunTable#matching}), with no per-key store.
   * The table positions of the first {@value #LOOKAHEAD} keys, and past an unknown key of the next
   * {@value #LOOKAHEAD}, are loaded at once ({@link RunTable#touch}), so that the probes of a new
   * stretch, each a cache miss, overlap.
   */
  int resolve(long[] keys, int count, boolean append) {
    return resolve(keys, count, append, 0, -1, 0);
  }

  /**
   * {@link #resolve(long[], int, boolean)} with {@code append}, the first {@code known} keys' arena
   * positions taken from {@code trace} ({@link WalkTrace#usable} of them) instead of found and
   * compared again: the same groups, as a run of positions is one group either way. Only the keys
   * from {@code known} on are read from {@code keys}.
   */
  int resolve(long[] keys, int count, WalkTrace trace, int known) {
    int groups = 0;
    int prev = -1;
    for (int k = 0, n = known == 0 ? 0 : trace.stretches(); k < n; k++) {
      int from = trace.from(k);
      if (from >= known) {
        break;
      }
      int b = trace.at(k);
      if (groups == 0 || b != prev + 1) {
        groups = startGroup(groups, from, b);
      }
      int to = k + 1 < n ? Math.min(trace.from(k + 1), known) : known;
      prev = b + (to - from) - 1;
    }
    return resolve(keys, count, true, groups, prev, known);
  }

  /** Group {@code groups} starts at key {@code i}, arena position {@code b}; returns the groups. */
  private int startGroup(int groups, int i, int b) {
    if (groups + 1 >= first.length) {
      first = Arrays.copyOf(first, Math.max(groups + 2, first.length * 2));
      at = Arrays.copyOf(at, first.length);
    }
    first[groups] = i;
    at[groups] = b;
    return groups + 1;
  }

  /** The resolution from key {@code i}, with {@code groups} groups before it ending at {@code prev}. */
  private int resolve(long[] keys, int count, boolean append, int groups, int prev, int i) {
    // the first keys' table positions too: a command's first probe is as likely to miss
    int touchedTo = Math.min(count, i + LOOKAHEAD);
    touched += table.touch(keys, i, touchedTo);
    while (i < count) {
      long k = keys[i];
      int b = table.find(k);
      if (b < 0) {
        // an unknown key is usually followed by more (a prompt's new stretch), each a probe that
        // misses the cache: load their table positions together first
        if (i + 1 >= touchedTo) {
          touchedTo = Math.min(count, i + 1 + LOOKAHEAD);
          touched += table.touch(keys, i + 1, touchedTo);
        }
        if (append) {
          b = table.append(k, prev >= 0 ? table.runOf(prev) : -1);
        }
      }
      // a new group unless this key continues the last one: its arena successor (an appended key
      // right after the previous appended one), or another unknown key
      boolean continues = groups > 0 && (b >= 0 ? prev >= 0 && b == prev + 1 : prev < 0);
      if (!continues) {
        groups = startGroup(groups, i, b);
      }
      i++;
      if (b >= 0) {
        int n = table.matching(keys, i, count, b + 1);
        i += n;
        b += n;
      }
      prev = b;
    }
    first[groups] = count;
    return groups;
  }
}
