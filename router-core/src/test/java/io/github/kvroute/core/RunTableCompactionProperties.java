package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.PromptKey;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.statistics.Statistics;

/**
 * Compactions, in place or into new arrays, against a list of the runs that should survive: prompts
 * appended as runs, holders dropped at random, compacted whenever the table asks, in cycles that
 * grow, hold and shrink the live blocks (so that both the arena and the key table are kept in some
 * compactions and replaced in others). After each compaction every live key is at its rank in
 * arena order, in a run with its holders, every dead key is gone, the arena's unused tail reads key
 * 0, and the arena and key table hold at most 60.5 bytes per live block past their minimum. After
 * every step, compaction or not, a walk of every stretch's prompt, and of every two stretches
 * appended one after the other, matches what the list says each slot holds.
 */
class RunTableCompactionProperties {

  /**
   * A prompt stretch appended as one run: its first block id, its length, its holder, its turn
   * (stretches of consecutive turns sit side by side in the arena while both live), its prompt.
   */
  record Stretch(long first, int length, int slot, int order, PromptKey prompt) {
    Stretch(long first, int length, int slot, int order) {
      this(first, length, slot, order, joined(first, length, 0, 0));
    }

    /** The prompt of blocks {@code [first, first + length)}, then {@code [next, next + more)}. */
    static PromptKey joined(long first, int length, long next, int more) {
      long[] ids = new long[length + more];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = i < length ? first + i : next + i - length;
      }
      return PromptKey.ofBlockHashes(ids, 1, ids.length, IndexHarness.NS);
    }

    long key(int i) {
      return prompt.blockHash(i);
    }
  }

  static final int SLOTS = 130;

  @Property(tries = 200)
  void compactionsKeepEveryLiveKeyAtItsRank_dropTheDead_andStayWithinTheirBytes(
      @ForAll @IntRange(min = 1, max = 60) int cycles,
      @ForAll @IntRange(min = 1, max = 200) int longest,
      @ForAll @LongRange(min = 0, max = 1_000_000) long seed) {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
    RunTable table = new RunTable(rnd.nextInt(3) == 0 ? 0 : 16);
    List<Stretch> live = new ArrayList<>();
    List<Stretch> dead = new ArrayList<>();
    long nextKey = 1;
    int turn = 0;
    int inPlace = 0;
    int afresh = 0;
    for (int c = 0; c < cycles; c++) {
      // growing, holding or shrinking: appends and drops in a ratio drawn per cycle
      int appends = rnd.nextInt(20);
      int drops = rnd.nextInt(20);
      for (int k = 0; k < appends; k++) {
        Stretch s = new Stretch(nextKey, 1 + rnd.nextInt(longest), rnd.nextInt(SLOTS), turn++);
        nextKey += s.length();
        int prev = -1;
        for (int i = 0; i < s.length(); i++) {
          prev = table.append(s.key(i), prev >= 0 ? table.runOf(prev) : -1);
        }
        table.addHolder(table.runOf(prev), s.slot());
        live.add(s);
      }
      for (int k = 0; k < drops && !live.isEmpty(); k++) {
        Stretch s = live.remove(rnd.nextInt(live.size()));
        table.removeHolder(table.runOf(table.find(s.key(0))), s.slot());
        dead.add(s);
      }
      // compacted when the table asks, and now and then when it does not (any time is allowed)
      if (table.wantsCompaction() || rnd.nextInt(8) == 0) {
        long[] arena = table.view().arena;
        int rewrites = table.compactionsInPlace();
        table.compact();
        inPlace += table.compactionsInPlace() - rewrites;
        afresh += table.view().arena == arena ? 0 : 1;
        check(table, live, dead);
      }
      checkWalks(table, live, dead);
    }
    table.compact();
    check(table, live, dead);
    Statistics.label("compacted in place").collect(inPlace > 0);
    Statistics.label("compacted in place").coverage(c -> c.check(true).percentage(p -> p >= 20));
    Statistics.label("compacted afresh").collect(afresh > 0);
    Statistics.label("compacted afresh").coverage(c -> c.check(true).percentage(p -> p >= 20));
  }

  private static void check(RunTable table, List<Stretch> live, List<Stretch> dead) {
    List<Stretch> inArenaOrder = new ArrayList<>(live);
    inArenaOrder.sort(java.util.Comparator.comparingInt(Stretch::order));
    int rank = 0;
    for (Stretch s : inArenaOrder) {
      for (int i = 0; i < s.length(); i++) {
        assertThat(table.find(s.key(i))).as("key %s of %s", i, s).isEqualTo(rank++);
      }
      int r = table.runOf(rank - 1);
      assertThat(table.holds(r, s.slot())).isTrue();
    }
    assertThat(table.blockTop()).isEqualTo(rank);
    assertThat(table.liveBlocks()).isEqualTo(rank);
    for (Stretch s : dead) {
      assertThat(table.find(s.key(0))).as("dead %s", s).isNegative();
      assertThat(table.find(s.key(s.length() - 1))).isNegative();
    }
    RunTable.View v = table.view();
    for (int b = rank; b < v.blocks; b++) {
      assertThat(v.keyAt(b)).as("unused tail at %s", b).isZero();
    }
    assertThat(table.blockArrayBytes()).isLessThanOrEqualTo(rank * 121L / 2 + 2_048);
    assertThat(table.wantsCompaction()).isFalse();
  }

  /**
   * Walks every live and dead stretch's prompt, and every live stretch followed by the next one
   * appended, for its holder and another slot, and compares with what the lists say they hold.
   */
  private static void checkWalks(RunTable table, List<Stretch> live, List<Stretch> dead) {
    java.util.Map<Integer, Stretch> byTurn = new java.util.HashMap<>();
    live.forEach(s -> byTurn.put(s.order(), s));
    int words = (SLOTS + 63) / 64;
    for (Stretch s : live) {
      int other = (s.slot() + 1) % SLOTS;
      walk(table, s.prompt(), s.slot(), s.length(), other, 0, words);
      Stretch next = byTurn.get(s.order() + 1);
      if (next != null) {
        // past its own blocks the walk goes on into the next stretch's run for its holder only
        PromptKey both = Stretch.joined(s.first(), s.length(), next.first(), next.length());
        boolean sameHolder = next.slot() == s.slot();
        walk(table, both, s.slot(), s.length() + (sameHolder ? next.length() : 0),
            sameHolder ? other : next.slot(), 0, words);
      }
    }
    for (Stretch s : dead) {
      walk(table, s.prompt(), s.slot(), 0, (s.slot() + 1) % SLOTS, 0, words);
    }
  }

  /** Walks {@code p} for slots {@code a} and {@code b}; expects {@code wantA} and {@code wantB}. */
  private static void walk(RunTable table, PromptKey p, int a, int wantA, int b, int wantB,
      int words) {
    long[] mask = new long[words];
    mask[a >>> 6] |= 1L << a;
    mask[b >>> 6] |= 1L << b;
    int[] out = new int[words << 6];
    java.util.Arrays.fill(out, -1);
    assertThat(IndexWalk.match(table, p, mask, words, new long[words], out))
        .as("no compaction in place overlapped a walk on the writer's thread").isTrue();
    assertThat(out[a]).as("%s on slot %s", p, a).isEqualTo(wantA);
    assertThat(out[b]).as("%s on slot %s", p, b).isEqualTo(wantB);
  }
}
