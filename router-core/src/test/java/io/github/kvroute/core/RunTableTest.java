package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.github.kvroute.api.PromptKey;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The reader-visible arena of runs: appends, cuts, merges, widening and compaction. */
class RunTableTest {
  private final RunTable table = new RunTable(RunTable.MIN_GARBAGE);

  /** Appends {@code keys} as one new prompt stretch; returns the first block's position. */
  private int appendRun(long... keys) {
    int first = -1;
    int prev = -1;
    for (long k : keys) {
      int b = table.append(k, prev >= 0 ? table.runOf(prev) : -1);
      first = first < 0 ? b : first;
      prev = b;
    }
    return first;
  }

  @Test
  void aNegativeCompactionFloorIsRejected() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new PrefixIndex(PrefixIndex.MIN_BUDGET_BYTES, 1, 1, -1))
        .withMessage("minGarbage: -1 (expected: >= 0)");
  }

  @Test
  void aPromptsNewBlocksFormOneRun_foundByKey() {
    int b = appendRun(11, 12, 13);

    assertThat(table.find(11)).isEqualTo(b);
    assertThat(table.find(13)).isEqualTo(b + 2);
    assertThat(table.find(14)).isNegative();
    int r = table.runOf(b);
    assertThat(table.runOf(b + 2)).isEqualTo(r);
    assertThat(table.start(r)).isEqualTo(b);
    assertThat(table.end(r)).isEqualTo(b + 3);
    assertThat(table.anyHolder(r)).as("appended blocks have no holders yet").isFalse();
    assertThat(table.liveBlocks()).isZero();
  }

  @Test
  void theKeyZeroIsAKeyLikeAnyOther() {
    int b = appendRun(0, 1);

    assertThat(table.find(0)).isEqualTo(b);
    assertThat(table.find(1)).isEqualTo(b + 1);
    table.addHolder(table.runOf(b), 3);
    RunTable.View v = table.view();
    assertThat(v.word(v.record(b), 0)).isEqualTo(1L << 3);
  }

  @Test
  void splittingMovesTheShorterPart_withTheSameHolders() {
    int b = appendRun(1, 2, 3, 4, 5, 6, 7, 8);
    int r = table.runOf(b);
    table.addHolder(r, 5);

    int fresh = table.splitAt(b + 2);

    assertThat(fresh).isNotEqualTo(r);
    assertThat(table.runOf(b)).as("the two-block left part moved").isEqualTo(fresh);
    assertThat(table.runOf(b + 2)).isEqualTo(r);
    assertThat(table.start(r)).isEqualTo(b + 2);
    assertThat(table.end(fresh)).isEqualTo(b + 2);
    assertThat(table.holds(fresh, 5)).isTrue();
    assertThat(table.splitAt(b + 2)).as("already a boundary").isNegative();
    assertThat(table.liveRuns()).isEqualTo(2);
    assertThat(table.liveBlocks()).isEqualTo(8);
  }

  @Test
  void mergingJoinsNeighboursAndRetiresTheShorter() {
    int b = appendRun(1, 2, 3, 4, 5);
    int r = table.runOf(b);
    table.addHolder(r, 0);
    table.splitAt(b + 1);
    int left = table.runOf(b);
    int right = table.runOf(b + 1);

    int gone = table.merge(left, right);

    assertThat(gone).isEqualTo(left);
    assertThat(table.runOf(b)).isEqualTo(right);
    assertThat(table.start(right)).isEqualTo(b);
    assertThat(table.end(right)).isEqualTo(b + 5);
    assertThat(table.length(gone)).isZero();
    assertThat(table.liveRuns()).isEqualTo(1);
  }

  @Test
  void holdersBeyondTheFirstWordWidenEveryRun() {
    int a = appendRun(1, 2);
    table.addHolder(table.runOf(a), 3);
    int b = appendRun(9);

    table.addHolder(table.runOf(b), 130);

    assertThat(table.stride()).isEqualTo(3);
    assertThat(table.word(table.runOf(b), 2)).isEqualTo(1L << (130 - 128));
    assertThat(table.word(table.runOf(b), 0)).isZero();
    assertThat(table.word(table.runOf(b), 7)).as("past the stride").isZero();
    assertThat(table.holds(table.runOf(a), 3)).as("kept across the widening").isTrue();
  }

  @Test
  void aViewTakenBeforeTheArraysGrewStillAnswersFromItsOwn() {
    int b = appendRun(42);
    table.addHolder(table.runOf(b), 0);
    RunTable.View before = table.view();

    for (long k = 1_000; k < 3_000; k++) {
      appendRun(k);
    }

    assertThat(table.view()).isNotSameAs(before);
    assertThat(before.word(before.record(before.find(42)), 0)).isEqualTo(1L);
    assertThat(before.find(2_999)).as("added after the view was taken").isNegative();
  }

  @Test
  void compactionKeepsTheLiveRunsInOrder_andDropsTheDead() {
    int live = appendRun(1, 2, 3);
    table.addHolder(table.runOf(live), 0);
    for (long k = 100; k < 1_100; k++) {
      appendRun(k);
    }
    int tail = appendRun(7, 8);
    table.addHolder(table.runOf(tail), 1);
    assertThat(table.wantsCompaction()).isTrue();

    int[] renumber = table.compact();

    assertThat(table.blockTop()).isEqualTo(5);
    assertThat(table.find(100)).as("a dead block is gone").isNegative();
    int b = table.find(1);
    int r = table.runOf(b);
    assertThat(renumber[table.runOf(b)]).isGreaterThanOrEqualTo(0);
    assertThat(table.end(r) - table.start(r)).isEqualTo(3);
    assertThat(table.find(3)).isEqualTo(b + 2);
    assertThat(table.holds(table.runOf(table.find(8)), 1)).isTrue();
    assertThat(table.wantsCompaction()).isFalse();
  }

  @Test
  void aTableGrownToAnyLengthFindsEveryKey_andMissesOthers() {
    for (long k = 1; k <= 5_000; k++) {
      appendRun(k * 0x9E3779B97F4A7C15L);
      if (k % 997 == 0 || k == 64 || k == 65) {
        for (long j = 1; j <= k; j++) {
          assertThat(table.find(j * 0x9E3779B97F4A7C15L)).as("key %s of %s", j, k)
              .isEqualTo((int) j - 1);
        }
        assertThat(table.find(-k)).isNegative();
      }
    }
    RunTable.View v = table.view();
    assertThat(v.table.length).as("at most three key-table positions per arena position in use")
        .isLessThanOrEqualTo(3 * table.blockTop() + 2 * RunTable.MIN_BLOCKS);
    assertThat(v.arena.length / 2).isLessThanOrEqualTo(table.blockTop() * 5 / 4 + RunTable.MIN_BLOCKS);
  }

  @Test
  void deadBlocksUpTo7Of16OfTheLiveOnesWaitForCompaction() {
    int live = appendRun(java.util.stream.LongStream.rangeClosed(1, 1_600).toArray());
    table.addHolder(table.runOf(live), 0);
    int dead = appendRun(java.util.stream.LongStream.rangeClosed(10_001, 10_700).toArray());
    table.addHolder(table.runOf(dead), 1);
    table.removeHolder(table.runOf(dead), 1);
    assertThat(table.wantsCompaction()).as("700 dead of 1,600 live").isFalse();

    int more = appendRun(20_001);
    table.addHolder(table.runOf(more), 1);
    table.removeHolder(table.runOf(more), 1);
    assertThat(table.wantsCompaction()).as("701 dead").isTrue();

    table.compact();
    assertThat(table.blockTop()).isEqualTo(1_600);
    assertThat(table.find(10_001)).isNegative();
    assertThat(table.find(1_600)).isEqualTo(table.find(1) + 1_599);
    // the table has room for the appends until the next compaction: 7/16 more blocks rehash
    // nothing, and arena and table stay within 60.5 bytes per live block
    RunTable.View rebuilt = table.view();
    assertThat(rebuilt.table.length)
        .isLessThanOrEqualTo(1_600 * RunTable.KEPT_TABLE_NUM / 16 + 2 * RunTable.MIN_BLOCKS);
    assertThat(table.blockArrayBytes()).isLessThanOrEqualTo(1_600 * 121 / 2 + 2_048);
    for (long k = 30_001; k <= 30_700; k++) {
      appendRun(k);
    }
    assertThat(table.view().table).as("not rehashed").isSameAs(rebuilt.table);
    for (long k = 1; k <= 1_600; k++) {
      assertThat(table.find(k)).isEqualTo(table.find(1) + (int) k - 1);
    }
  }

  /** Appends {@code n} keys from {@code base} as one run held by {@code slot}; its first block. */
  private int liveRun(long base, int n, int slot) {
    int b = appendRun(java.util.stream.LongStream.range(base, base + n).toArray());
    table.addHolder(table.runOf(b), slot);
    return b;
  }

  /** Splits {@code b}'s run at {@code b + 1} and merges it back, {@code times}: one retired each. */
  private void retire(int b, int times) {
    for (int i = 0; i < times; i++) {
      table.splitAt(b + 1);
      table.merge(table.runOf(b), table.runOf(b + 1));
    }
  }

  @Test
  void runsRetiredPastTheirBoundAreDroppedWithoutMovingABlock() {
    int first = liveRun(1, 1_000, 0);
    int dead = liveRun(100_001, 100, 1);
    int last = liveRun(200_001, 1_000, 2);
    table.removeHolder(table.runOf(dead), 1);
    retire(first, RunTable.MIN_GARBAGE + 1);
    assertThat(table.wantsCompaction()).as("the retired runs call for it").isTrue();
    long[] keys = table.view().table;
    long[] arena = table.view().arena;
    long version = table.rewrites().beginRead();
    int compactions = table.compactions();
    int lastRun = table.runOf(last);

    int[] renumber = table.compactAsDue();

    assertThat(table.view().table).as("the key table untouched").isSameAs(keys);
    assertThat(table.view().arena).isSameAs(arena);
    assertThat(table.find(1)).as("no block moved").isEqualTo(first);
    assertThat(table.find(100_001)).as("the dead blocks stay").isEqualTo(dead);
    assertThat(table.find(200_001)).isEqualTo(last);
    assertThat(table.blockTop()).isEqualTo(2_100);
    assertThat(table.runOf(last)).isEqualTo(renumber[lastRun]).isEqualTo(2);
    assertThat(table.holds(table.runOf(first), 0)).isTrue();
    assertThat(table.holds(table.runOf(last + 999), 2)).isTrue();
    assertThat(table.anyHolder(table.runOf(dead))).isFalse();
    assertThat(table.length(table.runOf(first))).isEqualTo(1_000);
    assertThat(table.rewrites().beginRead()).as("bracketed for readers").isEqualTo(version + 2);
    assertThat(table.compactions()).isEqualTo(compactions + 1);
    assertThat(table.wantsCompaction()).isFalse();
  }

  @Test
  void retiredRunsWithDeadBlocksPastTheirBoundBringAWholeCompaction() {
    int first = liveRun(1, 1_000, 0);
    int dead = liveRun(100_001, 500, 1);
    liveRun(200_001, 100, 2);
    table.removeHolder(table.runOf(dead), 1);
    retire(first, RunTable.MIN_GARBAGE + 1);

    table.compactAsDue();

    assertThat(table.find(100_001)).as("the dead blocks are gone").isNegative();
    assertThat(table.find(200_001)).as("moved down").isEqualTo(1_000);
    assertThat(table.blockTop()).isEqualTo(1_100);
    assertThat(table.wantsCompaction()).isFalse();
  }

  @Test
  void aCompactionWorksInPlaceInArraysOfFittingLength_andBracketsItForReaders() {
    liveRun(1, 1_000, 0);
    int dead = liveRun(100_001, 700, 1);
    liveRun(200_001, 1_000, 2);
    table.removeHolder(table.runOf(dead), 1);
    long[] before = table.view().table;
    long version = table.rewrites().beginRead();
    long[] arenaBefore = table.view().arena;
    assertThat(arenaBefore.length / 2).as("1.25 to 1.625 positions per live block")
        .isBetween(2_500, 3_250 + RunTable.MIN_BLOCKS);
    assertThat(before.length).as("twice the arena's capacity, at most 4.3125 per live block")
        .isBetween(arenaBefore.length, 2_000 * RunTable.KEPT_TABLE_NUM / 16 + 2 * RunTable.MIN_BLOCKS);

    table.compact();

    assertThat(table.view().table).as("renumbered in place").isSameAs(before);
    assertThat(table.view().arena).as("compacted in place").isSameAs(arenaBefore);
    assertThat(arenaBefore[2 * 2_000]).as("the unused tail's keys are 0").isZero();
    assertThat(arenaBefore[2 * 2_699]).isZero();
    assertThat(table.rewrites().beginRead()).as("odd during, even after").isEqualTo(version + 2);
    for (long k = 1; k <= 1_000; k++) {
      assertThat(table.find(k)).isEqualTo((int) k - 1);
      assertThat(table.find(200_000 + k)).isEqualTo(999 + (int) k);
    }
    assertThat(table.find(100_001)).as("dropped with its block").isNegative();
    assertThat(table.find(100_700)).isNegative();
    assertThat(java.util.Arrays.stream(before).filter(e -> e != 0).count()).isEqualTo(2_000);
  }

  @Test
  void arraysTooLongForTheBlocksKeptAreBuiltAfresh() {
    int dead = liveRun(1, 3_000, 1);
    liveRun(10_001, 500, 0);
    table.removeHolder(table.runOf(dead), 1);
    long[] before = table.view().table;
    long version = table.rewrites().beginRead();

    table.compact();

    assertThat(table.view().table).isNotSameAs(before);
    assertThat(table.view().table.length).isEqualTo(500 * RunTable.FRESH_TABLE_NUM / 16);
    assertThat(table.view().arena.length).isEqualTo(2 * 750);
    assertThat(table.rewrites().beginRead()).as("no reader was at risk").isEqualTo(version);
    assertThat(table.find(10_001)).isZero();
    assertThat(table.find(1)).isNegative();
  }

  @Test
  void removalsWithoutAppendsBringACompactionOnceArenaAndTableExceed63BytesPerLiveBlock() {
    int[] runs = new int[100];
    for (int i = 0; i < runs.length; i++) {
      runs[i] = table.runOf(liveRun(1 + 1_000L * i, 100, 0));
    }
    table.compact();
    long bytes = table.blockArrayBytes();
    int removed = 0;
    while (!table.wantsCompaction()) {
      table.removeHolder(runs[removed++], 0);
    }
    int live = table.liveBlocks();
    assertThat(bytes).as("unchanged by removals").isEqualTo(table.blockArrayBytes());
    assertThat(bytes).isGreaterThan(63L * live + RunTable.minBlockArrayBytes(RunTable.MIN_GARBAGE));
    assertThat(table.blockTop() - live).as("fewer dead blocks than 7/16 of the live ones")
        .isLessThan(live * 7 / 16);
    table.compact();
    assertThat(table.wantsCompaction()).isFalse();
    assertThat(table.blockArrayBytes()).isLessThanOrEqualTo(live * 121L / 2 + 2_048);
  }

  @Test
  void walksRacingInPlaceRenumberingsAreExactOnceValidated_andNeverLongerOtherwise()
      throws Exception {
    long[] pinned = new long[48];
    for (int i = 0; i < pinned.length; i++) {
      pinned[i] = 0x5EED_0000_0000L + i * 7919L;
    }
    PromptKey prompt = PromptKey.ofBlockHashes(pinned, 1, pinned.length, IndexHarness.NS);
    RunTable fresh = new RunTable(RunTable.MIN_GARBAGE);
    int first = -1;
    // the prompt's keys as the index stores them (mapped into its namespace)
    for (long k : prompt.blockHashes()) {
      int b = fresh.append(k, first >= 0 ? fresh.runOf(first) : -1);
      first = first < 0 ? b : first;
    }
    fresh.addHolder(fresh.runOf(first), 5);
    AtomicBoolean stop = new AtomicBoolean();
    java.util.concurrent.atomic.AtomicInteger keptRenumberings =
        new java.util.concurrent.atomic.AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> writer = pool.submit(() -> {
        // 40 runs of 64 blocks live at a time, the oldest dropped as each new one comes
        long[] live = new long[40];
        for (long k = 1; k < 3_000; k++) {
          int b = -1;
          for (int j = 0; j < 64; j++) {
            long key = (k << 8 | j) * 0x9E3779B97F4A7C15L;
            b = fresh.append(key, b >= 0 ? fresh.runOf(b) : -1);
          }
          fresh.addHolder(fresh.runOf(b), 0);
          int old = (int) (k % live.length);
          if (live[old] != 0) {
            fresh.removeHolder(fresh.runOf(fresh.find(live[old])), 0);
          }
          live[old] = (k << 8) * 0x9E3779B97F4A7C15L;
          if (fresh.wantsCompaction()) {
            long[] t = fresh.view().table;
            fresh.compact();
            if (fresh.view().table == t) {
              keptRenumberings.incrementAndGet();
            }
          }
        }
        stop.set(true);
      });
      Future<?> reader = pool.submit(() -> {
        long[] mask = {1L << 5};
        long[] alive = new long[1];
        int[] out = new int[64];
        while (!stop.get()) {
          boolean exact = IndexWalk.match(fresh, prompt, mask, 1, alive, out);
          if (out[5] > pinned.length || (exact && out[5] != pinned.length)) {
            throw new AssertionError("matched " + out[5] + ", validated " + exact);
          }
        }
      });
      writer.get(120, TimeUnit.SECONDS);
      reader.get(120, TimeUnit.SECONDS);
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    assertThat(keptRenumberings.get()).as("tables renumbered in place").isGreaterThan(10);
  }

  @Test
  void aWalkThatOverlapsARewriteEveryTimeSaysSo_andOneThatOverlapsNoneIsExact() {
    PromptKey p = PromptKey.ofBlockHashes(new long[] {7, 8, 9}, 1, 3, IndexHarness.NS);
    int b = appendRun(p.blockHashes());
    table.addHolder(table.runOf(b), 2);
    long[] mask = {1L << 2};
    int[] out = new int[64];

    table.rewrites().beginWrite();
    boolean exactDuringRewrite = IndexWalk.match(table, p, mask, 1, new long[1], out);
    table.rewrites().endWrite();

    assertThat(exactDuringRewrite).as("every attempt saw a rewrite under way").isFalse();
    assertThat(IndexWalk.match(table, p, mask, 1, new long[1], out)).isTrue();
    assertThat(out[2]).isEqualTo(3);
  }

  @Test
  void readersAlwaysSeePinnedBlocksWhileTheWriterChurns() throws Exception {
    long[] pinned = new long[64];
    for (int i = 0; i < pinned.length; i++) {
      pinned[i] = 0x5EED_0000_0000L + i * 7919L;
    }
    int first = appendRun(pinned);
    table.addHolder(table.runOf(first), 2);
    table.addHolder(table.runOf(first), 66);
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      Future<?> writer = pool.submit(() -> {
        for (long k = 1; k < 200_000; k++) {
          int b = appendRun(k * 0x9E3779B97F4A7C15L, k * 0x9E3779B97F4A7C15L + 1);
          table.addHolder(table.runOf(b), (int) (k % 70));
          // cut the pinned run somewhere and merge it back, as holders coming and going would
          int at = first + 1 + (int) (k % 62);
          int fresh = table.splitAt(at);
          if (fresh >= 0) {
            table.merge(table.runOf(at - 1), table.runOf(at));
          }
          if (k % 3 == 0) {
            table.removeHolder(table.runOf(b), (int) (k % 70));
          }
        }
        stop.set(true);
      });
      Runnable reader = () -> {
        while (!stop.get()) {
          RunTable.View v = table.view();
          for (int i = 0; i < pinned.length; i++) {
            int b = v.find(pinned[i]);
            int rec = b < 0 ? -1 : v.record(b);
            for (int retry = 0; rec < 0 && b >= 0 && retry < 3; retry++) {
              // a run newer than these arrays: the walk looks the block up in the current ones
              v = table.view();
              b = v.find(pinned[i]);
              rec = b < 0 ? -1 : v.record(b);
            }
            if (rec < 0 || v.word(rec, 0) != 1L << 2 || v.word(rec, 1) != 1L << 2) {
              throw new AssertionError("pinned block " + i + " misread at " + b);
            }
          }
        }
      };
      Future<?> r1 = pool.submit(reader);
      Future<?> r2 = pool.submit(reader);

      writer.get(120, TimeUnit.SECONDS);
      r1.get(120, TimeUnit.SECONDS);
      r2.get(120, TimeUnit.SECONDS);
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    assertThat(table.runOf(first + 63)).isEqualTo(table.runOf(first));
  }
}
