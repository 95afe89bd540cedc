package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.ManualTicker;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The closed-attempt set's arrays: entries are found until they expire or the bound pushes them out
 * (oldest mark first), a re-mark extends an entry, and removals keep every other entry findable
 * (backward-shift deletion that broke a probe chain would lose entries).
 */
class ClosedAttemptsTest {
  private static final long TTL = 1_000;

  private final ManualTicker ticker = new ManualTicker();

  @Test
  void anEntry_isRememberedUntilItsTimeFromItsLastMark() {
    ClosedAttempts set = new ClosedAttempts(ticker, TTL, 1_000);
    set.add(42);
    ticker.advanceNanos(600);
    set.add(42);
    ticker.advanceNanos(600);
    assertThat(set.contains(42)).isTrue();
    ticker.advanceNanos(399);
    assertThat(set.contains(42)).isTrue();
    ticker.advanceNanos(1);
    assertThat(set.contains(42)).isFalse();
    set.cleanUp();
    assertThat(set.size()).isZero();
    assertThat(set.contains(0)).isFalse();
    set.add(0);
    assertThat(set.contains(0)).isTrue();
  }

  @Test
  void manyEntriesWithCollidingSlots_surviveRemovalsOfTheirNeighbours() {
    ClosedAttempts set = new ClosedAttempts(ticker, TTL, 1 << 20);
    SplittableRandom rnd = new SplittableRandom(5);
    List<Long> early = new ArrayList<>();
    List<Long> late = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      // few distinct low bits: long probe chains in every stripe
      long fp = (rnd.nextLong() & ~0xFFFFL) | (i % 7);
      early.add(fp);
      set.add(fp);
    }
    ticker.advanceNanos(TTL / 2);
    for (int i = 0; i < 20_000; i++) {
      long fp = (rnd.nextLong() & ~0xFFFFL) | (i % 7);
      late.add(fp);
      set.add(fp);
    }
    ticker.advanceNanos(TTL / 2);
    set.cleanUp();
    assertThat(set.size()).isEqualTo(late.size());
    for (long fp : early) {
      assertThat(set.contains(fp)).isFalse();
    }
    for (long fp : late) {
      assertThat(set.contains(fp)).as("%x", fp).isTrue();
    }
  }

  @Test
  void fingerprintsAlikeInTheirLow32Bits_areToldApartByTheirMarks() {
    ClosedAttempts set = new ClosedAttempts(ticker, TTL, 1 << 20);
    SplittableRandom rnd = new SplittableRandom(11);
    List<Long> kept = new ArrayList<>();
    List<Long> dropped = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      // the same low 32 bits (the index's copy of them, and the home slot) for all; two low values
      long fp = (rnd.nextLong() & 0xFFFF_FFFF_0000_0000L) | (i % 2 == 0 ? 0x1234L : 0x5678L);
      (i % 3 == 0 ? dropped : kept).add(fp);
      set.add(fp);
    }
    ticker.advanceNanos(TTL / 2);
    // re-marked: the first marks expire, these stay
    for (long fp : kept) {
      set.add(fp);
    }
    ticker.advanceNanos(TTL / 2);
    set.cleanUp();
    assertThat(set.size()).isEqualTo(kept.size());
    for (long fp : kept) {
      assertThat(set.contains(fp)).as("%x", fp).isTrue();
    }
    for (long fp : dropped) {
      assertThat(set.contains(fp)).as("%x", fp).isFalse();
    }
    // a fingerprint never marked, alike in its low 32 bits, is not taken for a duplicate
    assertThat(set.contains(0x7777_0000_0000_1234L)).isFalse();
  }

  @Test
  void aSlidingWindowOfMarks_reusesItsChunks_andKeepsExactlyTheLiveOnes() {
    ClosedAttempts set = new ClosedAttempts(ticker, TTL, 1 << 20);
    // all in one stripe: its chunks are emptied at the old end and taken again at the new end
    for (long t = 1; t <= 8 * ClosedAttempts.CHUNK + TTL; t++) {
      set.add(t);
      if (t % 3 == 0) {
        set.add(t - 1);
      }
      assertThat(set.contains(t)).isTrue();
      if (t > TTL) {
        // marked at t - TTL + 1 (or re-marked at t - TTL + 2): remembered; at t - TTL: forgotten
        assertThat(set.contains(t - TTL + 1)).as("%s at %s", t - TTL + 1, t).isTrue();
        boolean remarked = (t - TTL + 1) % 3 == 0;
        assertThat(set.contains(t - TTL)).as("%s at %s", t - TTL, t).isEqualTo(remarked);
      }
      ticker.advanceNanos(1);
    }
    set.cleanUp();
    assertThat(set.size()).isBetween(TTL - 1, TTL);
  }

  @Test
  void beyondTheBound_theOldestMarksAreForgottenFirst() {
    int max = ClosedAttempts.STRIPES * 4;
    ClosedAttempts set = new ClosedAttempts(ticker, TTL, max);
    // all in one stripe (same top bits): that stripe keeps its four newest
    for (long i = 1; i <= 10; i++) {
      set.add(i);
      ticker.advanceNanos(1);
    }
    set.add(3);
    assertThat(set.size()).isEqualTo(4);
    for (long i = 1; i <= 10; i++) {
      assertThat(set.contains(i)).as("%s", i).isEqualTo(i == 3 || i >= 8);
    }
  }

  @Test
  void concurrentMarks_areAllRemembered() throws Exception {
    ClosedAttempts set = new ClosedAttempts(ticker, TTL, 1 << 20);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        long base = (long) t << 40;
        done.add(pool.submit(() -> {
          for (long i = 1; i <= 20_000; i++) {
            set.add(Fingerprints.mix(base + i));
          }
        }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      assertThat(set.size()).isEqualTo(80_000);
      for (int t = 0; t < 4; t++) {
        for (long i = 1; i <= 20_000; i++) {
          assertThat(set.contains(Fingerprints.mix(((long) t << 40) + i))).isTrue();
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** A full-avalanche mix, so that the fingerprints spread over the stripes as real ones do. */
  private static final class Fingerprints {
    static long mix(long h) {
      h ^= h >>> 33;
      h *= 0xFF51AFD7ED558CCDL;
      h ^= h >>> 33;
      h *= 0xC4CEB9FE1A85EC53L;
      return h ^ (h >>> 33);
    }
  }
}
