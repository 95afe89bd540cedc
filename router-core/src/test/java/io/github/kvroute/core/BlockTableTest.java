package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The block-key hash table with holder bits. */
class BlockTableTest {
  private final BlockTable table = new BlockTable();

  @Test
  void getOrCreateMakesOneBlockPerKey() {
    assertThat(table.get(42)).isNull();

    BlockTable.Block b = table.getOrCreate(42, 1);

    assertThat(table.getOrCreate(42, 1)).isSameAs(b);
    assertThat(table.get(42)).isSameAs(b);
    assertThat(b.key).isEqualTo(42);
    assertThat(table.size()).isEqualTo(1);
  }

  @Test
  void holderBitsAreSetOnceAndCleared() {
    BlockTable.Block b = table.getOrCreate(42, 1);

    assertThat(table.addHolder(b, 3)).isTrue();
    assertThat(table.addHolder(b, 3)).isFalse();
    assertThat(table.addHolder(b, 5)).isTrue();

    assertThat(b.holds(3)).isTrue();
    assertThat(b.holds(4)).isFalse();
    assertThat(table.removeHolder(b, 3)).isTrue();
    assertThat(table.removeHolder(b, 3)).isFalse();
    assertThat(b.holds(3)).isFalse();
    assertThat(table.get(42)).as("slot 5 still holds it").isSameAs(b);
  }

  @Test
  void theLastHolderLeavingDeletesTheBlock() {
    BlockTable.Block b = table.getOrCreate(42, 1);
    table.addHolder(b, 0);

    table.removeHolder(b, 0);

    assertThat(table.get(42)).isNull();
    assertThat(table.size()).isZero();
    assertThat(table.getOrCreate(42, 1)).as("re-created fresh").isNotSameAs(b);
  }

  @Test
  void holdersBeyondTheFirstWordGrowTheBlock() {
    BlockTable.Block b = table.getOrCreate(42, 1);

    table.addHolder(b, 130);

    assertThat(b.holders).hasSizeGreaterThanOrEqualTo(3);
    assertThat(b.holds(130)).isTrue();
    assertThat(b.holds(66)).isFalse();
    assertThat(b.word(b.holders, 2)).isEqualTo(1L << (130 - 128));
    assertThat(b.word(new long[1], 5)).as("reading past a short holder array").isZero();
    assertThat(table.removeHolder(table.getOrCreate(7, 1), 200)).isFalse();
  }

  @Test
  void collidingKeysStayFindableAcrossDeletionsAndResizes() {
    // (i << 32) | i: both halves equal, so every key spreads to the same bucket
    for (long i = 1; i <= 200; i++) {
      table.addHolder(table.getOrCreate((i << 32) | i, 1), 0);
    }
    for (long i = 1; i <= 200; i += 2) {
      table.removeHolder(table.get((i << 32) | i), 0);
    }

    assertThat(table.size()).isEqualTo(100);
    for (long i = 1; i <= 200; i++) {
      assertThat(table.get((i << 32) | i) != null).as("key %d", i).isEqualTo(i % 2 == 0);
    }
    assertThat(table.capacity()).isGreaterThanOrEqualTo(2 * 100);
  }

  @Test
  void manyInsertsAndDeletesKeepTheTableConsistent() {
    for (int round = 0; round < 5; round++) {
      for (long k = 0; k < 5_000; k++) {
        table.addHolder(table.getOrCreate(k * 31 + round, 1), round);
      }
      for (long k = 0; k < 5_000; k++) {
        table.removeHolder(table.get(k * 31 + round), round);
      }
    }

    assertThat(table.size()).isZero();
    assertThat(table.get(31)).isNull();
    assertThat(table.capacity()).as("tombstones are reclaimed, not accumulated")
        .isLessThanOrEqualTo(1 << 14);
  }
}
