package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The block-key hash table with holder bits. */
class BlockTableTest {
  private final BlockTable table = new BlockTable();

  @Test
  void aBlockIsLiveWhileAnySlotHoldsIt() {
    assertThat(table.isHeld(42)).isFalse();

    assertThat(table.addHolder(42, 3)).isTrue();
    assertThat(table.addHolder(42, 3)).as("already set").isFalse();
    assertThat(table.addHolder(42, 5)).isTrue();

    assertThat(table.size()).isEqualTo(1);
    assertThat(table.holds(42, 3)).isTrue();
    assertThat(table.holds(42, 4)).isFalse();
    assertThat(table.removeHolder(42, 3)).isTrue();
    assertThat(table.removeHolder(42, 3)).isFalse();
    assertThat(table.holds(42, 3)).isFalse();
    assertThat(table.isHeld(42)).as("slot 5 still holds it").isTrue();

    table.removeHolder(42, 5);

    assertThat(table.isHeld(42)).isFalse();
    assertThat(table.size()).isZero();
    assertThat(table.addHolder(42, 1)).as("a dead block comes back").isTrue();
    assertThat(table.holds(42, 5)).as("with none of its old holders").isFalse();
    assertThat(table.size()).isEqualTo(1);
  }

  @Test
  void theKeyThatMarksEmptyPositionsIsStillAKey() {
    assertThat(table.isHeld(0)).isFalse();

    table.addHolder(0, 1);
    table.addHolder(1, 2);

    assertThat(table.holds(0, 1)).isTrue();
    assertThat(table.holds(1, 2)).isTrue();
    assertThat(table.holds(0, 2)).isFalse();
    assertThat(table.isHeld(2)).isFalse();
    assertThat(table.size()).isEqualTo(2);
    for (long k = 10; k < 1_000; k++) {
      table.addHolder(k, 3);
    }
    assertThat(table.holds(0, 1)).as("kept across rebuilds").isTrue();
    table.removeHolder(0, 1);
    assertThat(table.isHeld(0)).isFalse();
    assertThat(table.size()).isEqualTo(1 + 990);
  }

  @Test
  void holdersBeyondTheFirstWordWidenEveryPosition() {
    table.addHolder(7, 3);
    assertThat(table.stride()).isEqualTo(1);

    table.addHolder(42, 130);
    BlockTable.View v = table.view();
    int pos = v.find(42);

    assertThat(table.stride()).isEqualTo(3);
    assertThat(v.word(pos, 2)).isEqualTo(1L << (130 - 128));
    assertThat(v.word(pos, 1)).isZero();
    assertThat(v.word(pos, 0)).isZero();
    assertThat(v.word(pos, 7)).as("past the stride").isZero();
    assertThat(table.holds(7, 3)).as("kept across the widening").isTrue();
    assertThat(table.holds(42, 66)).isFalse();
    assertThat(table.removeHolder(9, 200)).as("unknown key").isFalse();
    assertThat(table.removeHolder(42, 200)).as("past the stride").isFalse();
    assertThat(table.removeHolder(42, 130)).isTrue();
    assertThat(table.size()).isEqualTo(1);
  }

  @Test
  void aViewTakenBeforeARebuildStillAnswersFromItsOwnArrays() {
    table.addHolder(42, 0);
    BlockTable.View before = table.view();

    for (long k = 1_000; k < 3_000; k++) {
      table.addHolder(k, 1);
    }

    assertThat(table.view()).isNotSameAs(before);
    assertThat(before.word(before.find(42), 0)).isEqualTo(1L);
    assertThat(before.find(2_999)).as("added after the view was taken").isNegative();
  }

  @Test
  void collidingKeysStayFindableAcrossDeletionsAndRebuilds() {
    // (i << 32) | i: both halves equal, a pattern that defeats a hash that only xors the halves
    for (long i = 1; i <= 200; i++) {
      table.addHolder((i << 32) | i, 0);
    }
    for (long i = 1; i <= 200; i += 2) {
      table.removeHolder((i << 32) | i, 0);
    }

    assertThat(table.size()).isEqualTo(100);
    for (long i = 1; i <= 200; i++) {
      assertThat(table.isHeld((i << 32) | i)).as("key %d", i).isEqualTo(i % 2 == 0);
    }
    assertThat(table.capacity()).isGreaterThanOrEqualTo(2 * 100);
  }

  @Test
  void churnReclaimsDeadPositionsAndShrinks() {
    for (int round = 0; round < 5; round++) {
      for (long k = 0; k < 5_000; k++) {
        table.addHolder(k * 31 + round * 1_000_003L, round);
      }
      for (long k = 0; k < 5_000; k++) {
        table.removeHolder(k * 31 + round * 1_000_003L, round);
      }
    }
    assertThat(table.size()).isZero();
    assertThat(table.capacity()).as("dead blocks are reclaimed, not accumulated")
        .isLessThanOrEqualTo(1 << 14);

    for (long k = 0; k < 20_000; k++) {
      table.addHolder(7_000_000_000L + k, 0);
      table.removeHolder(7_000_000_000L + k, 0);
    }
    table.addHolder(42, 0);

    assertThat(table.capacity()).as("a rebuild sizes the table for the live blocks, shrinking it")
        .isLessThanOrEqualTo(128);
    assertThat(table.isHeld(31)).isFalse();
    assertThat(table.isHeld(7_000_000_000L)).isFalse();
    assertThat(table.isHeld(42)).isTrue();
  }

  @Test
  void readersAlwaysSeePinnedBlocksWhileTheWriterChurnsAndRebuilds() throws Exception {
    long[] pinned = new long[64];
    for (int i = 0; i < pinned.length; i++) {
      pinned[i] = 0x5EED_0000_0000L + i * 7919L;
      table.addHolder(pinned[i], i % 3);
      table.addHolder(pinned[i], 64 + i % 5);
    }
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      Future<Long> writer = pool.submit(() -> {
        long k = 1;
        for (; k < 400_000; k++) {
          table.addHolder(k * 0x9E3779B97F4A7C15L, (int) (k % 70));
          if (k > 500) {
            table.removeHolder((k - 500) * 0x9E3779B97F4A7C15L, (int) ((k - 500) % 70));
          }
        }
        stop.set(true);
        return k;
      });
      Runnable reader = () -> {
        while (!stop.get()) {
          BlockTable.View v = table.view();
          for (int i = 0; i < pinned.length; i++) {
            int pos = v.find(pinned[i]);
            if (pos < 0 || v.word(pos, 0) != 1L << (i % 3) || v.word(pos, 1) != 1L << (i % 5)) {
              throw new AssertionError("pinned block " + i + " misread at position " + pos);
            }
          }
        }
      };
      Future<?> r1 = pool.submit(reader);
      Future<?> r2 = pool.submit(reader);

      assertThat(writer.get(60, TimeUnit.SECONDS)).isEqualTo(400_000L);
      r1.get(60, TimeUnit.SECONDS);
      r2.get(60, TimeUnit.SECONDS);
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    assertThat(table.size()).as("the pinned blocks and the last 500 churned ones").isEqualTo(64 + 500);
  }
}
