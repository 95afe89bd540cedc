package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A compaction's key table filled stretch by stretch ({@link KeyTable#fill}) holds the same entries
 * as one filled in arena order, and finds every key at its block.
 */
class KeyTableFillTest {

  private static long[] arena(int blocks, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    long[] arena = new long[2 * blocks];
    for (int b = 0; b < blocks; b++) {
      arena[2 * b] = rnd.nextLong();
    }
    return arena;
  }

  @Test
  void aTableFilledStretchByStretchHoldsTheArenaOrdersEntries_andFindsEveryKey() {
    for (int blocks : new int[] {KeyTable.PARTITION_MIN - 1, KeyTable.PARTITION_MIN, 100_003}) {
      long[] arena = arena(blocks, blocks);
      long[] filled = new long[blocks * 7 / 2];
      long[] inOrder = new long[filled.length];
      KeyTable.fill(filled, arena, blocks);
      for (int b = 0; b < blocks; b++) {
        KeyTable.place(inOrder, KeyTable.entry(arena[2 * b], b));
      }
      for (int b = 0; b < blocks; b++) {
        assertThat(KeyTable.find(filled, arena, blocks, arena[2 * b])).isEqualTo(b);
      }
      assertThat(KeyTable.find(filled, arena, blocks, 42L)).isNegative();
      long[] a = filled.clone();
      long[] b = inOrder.clone();
      Arrays.sort(a);
      Arrays.sort(b);
      assertThat(a).as("the same entries, %s keys", blocks).isEqualTo(b);
    }
  }
}
