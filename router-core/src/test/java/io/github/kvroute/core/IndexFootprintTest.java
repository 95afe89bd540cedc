package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The index budget bounds the heap the index retains, not only an estimate: after every operation,
 * the bytes its arrays hold (from their actual lengths, {@link PrefixIndex#footprintBytes}) are
 * within the accounting the budget is enforced against ({@link PrefixIndex#estimatedBytes}), which
 * is within the budget; and the accounting is not so loose that the arrays use less than half the
 * budget once it is full.
 */
class IndexFootprintTest {
  private static final long BUDGET = 1L << 20;

  private static void assertBounded(PrefixIndex index, long budget, Object when) {
    long arrays = index.footprintBytes();
    assertThat(arrays).as("arrays after %s", when).isLessThanOrEqualTo(index.estimatedBytes());
    assertThat(index.estimatedBytes()).as("accounting after %s", when)
        .isLessThanOrEqualTo(budget);
  }

  private static long[] keys(long base, int n) {
    long[] k = new long[n];
    for (int i = 0; i < n; i++) {
      k[i] = base + i + 1;
    }
    return k;
  }

  @Test
  void eachReplicaInTurnFillingTheBudgetThenClearedAndRemovedLeavesOnlyTheFixedPart() {
    PrefixIndex index = new PrefixIndex(BUDGET, 1L << 30, 1 << 16);
    long empty = index.estimatedBytes();
    int replicas = 8;
    int[][] slots = new int[replicas][];
    long peak = 0;
    for (int r = 0; r < replicas; r++) {
      slots[r] = index.allocateSlot();
      for (int batch = 0; batch < 40; batch++) {
        index.kvStored(slots[r][0], slots[r][1], keys(((long) r << 32) + batch * 1_024L, 1_024));
        assertBounded(index, BUDGET, "replica " + r + " batch " + batch);
        peak = Math.max(peak, index.footprintBytes());
      }
    }
    for (int[] s : slots) {
      index.kvCleared(s[0], s[1]);
      assertBounded(index, BUDGET, "clearing " + s[0]);
      index.release(s[0]);
    }

    // long runs of consecutive keys: the accounting is the blocks' arrays with their worst slack
    assertThat(peak).as("the arrays use the budget").isGreaterThan(BUDGET / 2);
    assertThat(index.entryCount()).isZero();
    assertThat(index.footprintBytes()).isLessThanOrEqualTo(index.estimatedBytes());
    assertThat(index.estimatedBytes() - empty).as("only the per-slot arrays remain")
        .isLessThanOrEqualTo(64L * replicas + 16 * 1_024);
  }

  @Test
  void blocksThatFormNoRunsAreTheWorstCase_andStillStayWithinTheBudget() {
    // one unrelated key per event, so every block is a run of its own, a third of them shared by a
    // second replica: the most arrays per entry the index can hold
    PrefixIndex index = new PrefixIndex(BUDGET, 1L << 30, 1 << 16);
    int replicas = 4;
    int[][] slots = new int[replicas][];
    for (int r = 0; r < replicas; r++) {
      slots[r] = index.allocateSlot();
    }
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(11);
    long peak = 0;
    for (int n = 0; n < 40_000; n++) {
      long key = rnd.nextLong();
      int r = n % replicas;
      index.kvStored(slots[r][0], slots[r][1], new long[] {key});
      if (n % 3 == 0) {
        int other = (r + 1) % replicas;
        index.kvStored(slots[other][0], slots[other][1], new long[] {key});
      }
      if (n % 250 == 0) {
        assertBounded(index, BUDGET, n);
        peak = Math.max(peak, index.footprintBytes());
      }
    }
    assertBounded(index, BUDGET, "the end");

    assertThat(index.estimatedBytes()).as("the budget is full")
        .isGreaterThan(BUDGET - PrefixIndex.BLOCK_BYTES - PrefixIndex.runBytes(1)
            - 2 * PrefixIndex.ENTRY_BYTES);
    assertThat(peak).as("the arrays use the budget").isGreaterThan(BUDGET / 2);
  }

  @Test
  void promptShapedLoadsOnManyReplicasUseTheBudget() {
    // 64-block prompts sharing a first block per family, each stored on 4 of 80 replicas (two
    // holder words per run), the load of the IndexMemory benchmark
    PrefixIndex index = new PrefixIndex(BUDGET, 1L << 30, 1 << 16);
    int replicas = 80;
    int[][] slots = new int[replicas][];
    for (int r = 0; r < replicas; r++) {
      slots[r] = index.allocateSlot();
    }
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(5);
    long peak = 0;
    for (int p = 0; p < 4_000; p++) {
      long[] k = new long[64];
      k[0] = p % 8 + 1;
      for (int i = 1; i < k.length; i++) {
        k[i] = rnd.nextLong();
      }
      for (int c = 0; c < 4; c++) {
        int r = rnd.nextInt(replicas);
        index.kvStored(slots[r][0], slots[r][1], k);
      }
      if (p % 100 == 0) {
        assertBounded(index, BUDGET, p);
        peak = Math.max(peak, index.footprintBytes());
      }
    }
    assertBounded(index, BUDGET, "the end");
    assertThat(peak).as("the arrays use the budget").isGreaterThan(BUDGET / 2);
  }

  @Test
  void removingMostOfASlotShrinksItsMirror() {
    PrefixIndex index = new PrefixIndex(BUDGET, 1L << 30, 1 << 16);
    int[] s = index.allocateSlot();
    long[] held = keys(0, 8_000);
    index.kvStored(s[0], s[1], held);
    long full = index.footprintBytes();

    index.kvRemoved(s[0], s[1], java.util.Arrays.copyOf(held, 7_900));

    assertThat(index.slotEntries(s[0])).isEqualTo(100);
    assertThat(index.footprintBytes()).isLessThan(full / 20);
  }

  // ---------------------------------------------------------------------- any sequence of ops

  sealed interface Op permits Store, Remove, Clear, Insert, Reset, Release {}

  record Store(int slot, int base, int count) implements Op {}

  record Remove(int slot, int base, int count) implements Op {}

  record Clear(int slot) implements Op {}

  record Insert(int slot, int base, int blocks) implements Op {}

  record Reset(int slot) implements Op {}

  record Release(int slot) implements Op {}

  @Provide
  Arbitrary<List<Op>> ops() {
    Arbitrary<Integer> slot = Arbitraries.integers().between(0, 5);
    Arbitrary<Integer> base = Arbitraries.integers().between(0, 40).map(b -> b * 256);
    Arbitrary<Integer> count = Arbitraries.integers().between(1, 3_000);
    Arbitrary<Op> op = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, Combinators.combine(slot, base, count).as(Store::new)),
        net.jqwik.api.Tuple.of(4, Combinators.combine(slot, base, count).as(Remove::new)),
        net.jqwik.api.Tuple.of(1, slot.map(Clear::new)),
        net.jqwik.api.Tuple.of(4, Combinators.combine(slot, base,
            Arbitraries.integers().between(1, 400)).as(Insert::new)),
        net.jqwik.api.Tuple.of(1, slot.map(Reset::new)),
        net.jqwik.api.Tuple.of(1, slot.map(Release::new)));
    return op.list().ofMaxSize(60);
  }

  @Property(tries = 60)
  void anySequenceOfOperationsStaysWithinTheBudget(
      @ForAll("ops") List<Op> ops) {
    long budget = PrefixIndex.MIN_BUDGET_BYTES * 4;
    PrefixIndex index = new PrefixIndex(budget, 2_000, 1 << 16);
    List<int[]> slots = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      slots.add(index.allocateSlot());
    }
    for (Op op : ops) {
      apply(index, slots, op);
      assertBounded(index, budget, op);
    }
  }

  private static void apply(PrefixIndex index, List<int[]> slots, Op op) {
    if (op instanceof Store s) {
      index.kvStored(slot(slots, s.slot()), gen(slots, s.slot()),
          keys(((long) s.slot() << 40) + s.base(), s.count()));
    } else if (op instanceof Remove r) {
      index.kvRemoved(slot(slots, r.slot()), gen(slots, r.slot()),
          keys(((long) r.slot() << 40) + r.base(), r.count()));
    } else if (op instanceof Clear c) {
      index.kvCleared(slot(slots, c.slot()), gen(slots, c.slot()));
    } else if (op instanceof Insert i) {
      int[] tokens = new int[i.blocks()];
      for (int t = 0; t < tokens.length; t++) {
        tokens[t] = i.base() + t;
      }
      index.insertRouted(slot(slots, i.slot()), gen(slots, i.slot()),
          IndexHarness.blocks(tokens), 0);
    } else if (op instanceof Reset r) {
      slots.get(r.slot())[1] = index.reset(slot(slots, r.slot()));
    } else if (op instanceof Release r) {
      index.release(slot(slots, r.slot()));
      slots.set(r.slot(), index.allocateSlot());
    }
  }

  private static int slot(List<int[]> slots, int i) {
    return slots.get(i)[0];
  }

  private static int gen(List<int[]> slots, int i) {
    return slots.get(i)[1];
  }
}
