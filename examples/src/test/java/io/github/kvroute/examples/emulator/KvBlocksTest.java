package io.github.kvroute.examples.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class KvBlocksTest {
  private static final long[] PREFIX = {11, 12, 13, 14};

  @Test
  void twoRunningSequencesSharingAPrefixHoldItOnce() {
    KvBlocks kv = new KvBlocks(20, 16);
    List<Long> evicted = new ArrayList<>();
    // 4 full blocks of prompt (70 tokens) and 10 output tokens: 5 blocks
    assertThat(kv.admit(PREFIX, 70, 5, evicted)).isZero();
    assertThat(kv.register(PREFIX, 0)).isZero();
    assertThat(kv.admit(PREFIX, 70, 5, evicted)).isEqualTo(4);

    // 4 shared blocks, one private each
    assertThat(kv.usedBlocks()).isEqualTo(6);
    kv.release(PREFIX, 4, 1);
    kv.release(PREFIX, 4, 1);
    assertThat(kv.usedBlocks()).isZero();
    assertThat(kv.cachedBlocks()).isEqualTo(4);
    assertThat(evicted).isEmpty();
  }

  @Test
  void aFullyCachedPromptStillComputesItsLastBlockAndEvictionTakesTheTailFirst() {
    KvBlocks kv = new KvBlocks(6, 16);
    List<Long> evicted = new ArrayList<>();
    kv.admit(PREFIX, 64, 5, evicted);
    kv.register(PREFIX, 0);
    kv.release(PREFIX, 4, 1);

    // 64 tokens, all cached: 3 blocks reused, the last recomputed
    assertThat(kv.admit(PREFIX, 64, 5, evicted)).isEqualTo(3);
    kv.register(PREFIX, 3);
    kv.release(PREFIX, 4, 1);
    // a 6-block stranger evicts all four, the tail first
    assertThat(kv.admit(new long[] {21, 22, 23, 24, 25}, 90, 6, evicted)).isZero();
    assertThat(evicted).containsExactly(14L, 13L, 12L, 11L);
  }

  @Test
  void aSequenceThatDoesNotFitChangesNothing() {
    KvBlocks kv = new KvBlocks(6, 16);
    List<Long> evicted = new ArrayList<>();
    kv.admit(PREFIX, 70, 5, evicted);
    assertThat(kv.admit(new long[] {31}, 20, 2, evicted)).isEqualTo(-1);
    assertThat(kv.usedBlocks()).isEqualTo(5);
    assertThat(evicted).isEmpty();
  }

  /** Any sequence of admissions, registrations and releases keeps the blocks within the total. */
  @Property(tries = 200)
  void blocksNeverExceedTheTotal(
      @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 7) Integer> prompts,
      @ForAll @IntRange(min = 8, max = 40) int total) {
    KvBlocks kv = new KvBlocks(total, 16);
    List<long[]> running = new ArrayList<>();
    List<int[]> counts = new ArrayList<>();
    List<Long> evicted = new ArrayList<>();
    for (int p : prompts) {
      // prompt p shares its first p / 2 blocks with prompts of the same parity
      long[] hashes = new long[p];
      for (int b = 0; b < p; b++) {
        hashes[b] = b < p / 2 ? (p % 2) * 100 + b : p * 1000 + b;
      }
      int blocks = p + 1;
      int reused = kv.admit(hashes, p * 16 + 3, blocks, evicted);
      if (reused < 0) {
        // release the oldest to make room, as finishing sequences do
        if (!running.isEmpty()) {
          int[] c = counts.remove(0);
          kv.release(running.remove(0), c[0], c[1]);
        }
      } else {
        kv.register(hashes, reused);
        running.add(hashes);
        counts.add(new int[] {hashes.length, blocks - hashes.length});
      }
      assertThat(kv.usedBlocks()).isBetween(0, total);
      assertThat(kv.cachedBlocks()).isBetween(0, total);
    }
    for (int i = 0; i < running.size(); i++) {
      kv.release(running.get(i), counts.get(i)[0], counts.get(i)[1]);
    }
    assertThat(kv.usedBlocks()).isZero();
  }
}
