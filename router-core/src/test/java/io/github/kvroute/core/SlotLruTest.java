package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The per-slot recency set of primitive keys. */
class SlotLruTest {
  private final SlotLru lru = new SlotLru();

  @Test
  void emptyHasNoTail() {
    assertThat(lru.size()).isZero();
    assertThat(lru.tailTick()).isEqualTo(Long.MAX_VALUE);
    assertThat(lru.contains(1)).isFalse();
    assertThat(lru.tickOf(1)).isEqualTo(-1);
    assertThat(lru.keysByRecency()).isEmpty();
    assertThat(lru.remove(1)).isFalse();
  }

  @Test
  void touchAddsOnceAndMovesToTheFront() {
    assertThat(lru.touch(10, 1)).isTrue();
    assertThat(lru.touch(20, 2)).isTrue();
    assertThat(lru.touch(30, 3)).isTrue();

    assertThat(lru.touch(10, 4)).as("already held").isFalse();

    assertThat(lru.size()).isEqualTo(3);
    assertThat(lru.keysByRecency()).containsExactly(10, 30, 20);
    assertThat(lru.tailKey()).isEqualTo(20);
    assertThat(lru.tailTick()).isEqualTo(2);
    assertThat(lru.tickOf(10)).isEqualTo(4);
  }

  @Test
  void touchingTheHeadAgainUpdatesItsTick() {
    lru.touch(10, 1);

    lru.touch(10, 7);

    assertThat(lru.keysByRecency()).containsExactly(10);
    assertThat(lru.tickOf(10)).isEqualTo(7);
    assertThat(lru.tailTick()).isEqualTo(7);
  }

  @Test
  void removeUnlinksFromAnyPosition() {
    for (long k = 1; k <= 5; k++) {
      lru.touch(k, k);
    }

    assertThat(lru.remove(3)).isTrue();
    assertThat(lru.remove(5)).as("head").isTrue();
    assertThat(lru.remove(1)).as("tail").isTrue();
    assertThat(lru.remove(3)).as("twice").isFalse();

    assertThat(lru.keysByRecency()).containsExactly(4, 2);
    assertThat(lru.tailKey()).isEqualTo(2);
    assertThat(lru.contains(3)).isFalse();
  }

  @Test
  void keysSurviveGrowthRemovalAndReinsertion() {
    for (long k = 0; k < 1_000; k++) {
      lru.touch(k * 0x9E3779B97F4A7C15L, k);
    }
    for (long k = 0; k < 1_000; k += 2) {
      assertThat(lru.remove(k * 0x9E3779B97F4A7C15L)).isTrue();
    }
    for (long k = 0; k < 1_000; k += 4) {
      lru.touch(k * 0x9E3779B97F4A7C15L, 1_000 + k);
    }

    assertThat(lru.size()).isEqualTo(500 + 250);
    for (long k = 0; k < 1_000; k++) {
      boolean held = k % 2 == 1 || k % 4 == 0;
      assertThat(lru.contains(k * 0x9E3779B97F4A7C15L)).as("key %d", k).isEqualTo(held);
    }
    assertThat(lru.tailKey()).isEqualTo(0x9E3779B97F4A7C15L);
    assertThat(lru.keysByRecency()[0]).isEqualTo(996 * 0x9E3779B97F4A7C15L);
  }

  @Test
  void keysWithTheSameHashBitsAreDistinct() {
    // keys whose 32-bit halves are equal all spread to the same index position
    for (long i = 1; i <= 40; i++) {
      lru.touch((i << 32) | i, i);
    }
    for (long i = 1; i <= 40; i += 3) {
      lru.remove((i << 32) | i);
    }

    for (long i = 1; i <= 40; i++) {
      assertThat(lru.contains((i << 32) | i)).as("key %d", i).isEqualTo((i - 1) % 3 != 0);
    }
  }

  @Test
  void clearForgetsEverything_andTheStructureIsReusable() {
    for (long k = 1; k <= 50; k++) {
      lru.touch(k, k);
    }

    lru.clear();

    assertThat(lru.size()).isZero();
    assertThat(lru.contains(7)).isFalse();
    assertThat(lru.tailTick()).isEqualTo(Long.MAX_VALUE);
    lru.touch(7, 100);
    lru.touch(8, 101);
    assertThat(lru.keysByRecency()).containsExactly(8, 7);
    assertThat(lru.arrayBytes()).isPositive();
  }
}
