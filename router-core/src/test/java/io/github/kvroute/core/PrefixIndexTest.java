package io.github.kvroute.core;

import static io.github.kvroute.core.IndexHarness.blocks;
import static io.github.kvroute.core.IndexHarness.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.github.kvroute.api.PromptKey;
import org.junit.jupiter.api.Test;

/** The prefix index's semantics, one concern per test, through its package-private API. */
class PrefixIndexTest {
  private final IndexHarness h = new IndexHarness(1L << 30, 1_000);
  private final PrefixIndex ix = h.index;

  private static final PromptKey ABCD = blocks(1, 2, 3, 4);
  private static final PromptKey EFGH = blocks(5, 6, 7, 8);

  // ------------------------------------------------------------------------------- matching

  @Test
  void matchIsTheLeadingRunOfHeldBlocks_aGapStopsIt() {
    int[] s = ix.allocateSlot();

    ix.kvStored(s[0], s[1], keys(ABCD, 0, 1, 3));

    assertThat(h.match(ABCD, s[0])).isEqualTo(2);
    assertThat(h.match(blocks(1, 2), s[0])).isEqualTo(2);
    assertThat(h.match(blocks(9, 2, 3, 4), s[0])).as("a different first block").isZero();
  }

  @Test
  void eachCandidateGetsItsOwnMatch_andSlotsOutsideTheMaskAreNotWritten() {
    int[][] s = h.allocate(3);
    ix.kvStored(s[0][0], s[0][1], keys(ABCD, 0, 1, 2, 3));
    ix.kvStored(s[1][0], s[1][1], keys(ABCD, 0));
    ix.kvStored(s[2][0], s[2][1], keys(ABCD, 0, 1));

    assertThat(h.match(ABCD, s[0][0], s[1][0])).containsExactly(4, 1);
    assertThat(h.match(ABCD, s[2][0])).isEqualTo(2);
    assertThat(h.match(ABCD, s[0][0], s[1][0], s[2][0])).containsExactly(4, 1, 2);
  }

  @Test
  void emptyPromptAndEmptyIndexMatchNothing() {
    int[] s = ix.allocateSlot();

    assertThat(h.match(ABCD, s[0])).isZero();
    assertThat(h.match(blocks(), s[0])).isZero();
  }

  @Test
  void slotsBeyondTheFirstMaskWordMatch() {
    int[][] s = h.allocate(70);
    assertThat(ix.words()).isEqualTo(2);

    ix.kvStored(s[69][0], s[69][1], keys(ABCD, 0, 1, 2));
    ix.kvStored(s[3][0], s[3][1], keys(ABCD, 0));

    assertThat(h.match(ABCD, s[3][0], s[64][0], s[69][0])).containsExactly(1, 0, 3);
  }

  @Test
  void aBlockCreatedBeforeTheMaskGrewTakesHoldersBeyondTheFirstWord() {
    int[] first = ix.allocateSlot();
    ix.kvStored(first[0], first[1], keys(ABCD, 0, 1));
    int[][] more = h.allocate(69);
    int[] last = more[68];
    assertThat(last[0]).isGreaterThanOrEqualTo(64);

    ix.kvStored(last[0], last[1], keys(ABCD, 0, 1, 2));

    assertThat(h.match(ABCD, first[0], last[0])).containsExactly(2, 3);
    assertThat(ix.blockCount()).isEqualTo(3);
    assertThat(ix.entryCount()).isEqualTo(5);
  }

  // ------------------------------------------------------------------- approximate mode

  @Test
  void routedInsertIsBelievedUpToTheSlotsCapacity() {
    int[] s = ix.allocateSlot();
    ix.setCapacity(s[0], s[1], 3);

    ix.insertRouted(s[0], s[1], blocks(1, 2, 3, 4, 5), 0);

    assertThat(h.match(blocks(1, 2, 3, 4, 5), s[0])).isEqualTo(3);
    assertThat(ix.slotEntries(s[0])).isEqualTo(3);
  }

  @Test
  void insertsTouchDeepestFirst_soCapacityEvictionTrimsLeavesAndKeepsTheRoot() {
    int[] s = ix.allocateSlot();
    ix.setCapacity(s[0], s[1], 4);
    PromptKey a = blocks(1, 2, 3, 4);
    PromptKey b = blocks(1, 7, 8);

    ix.insertRouted(s[0], s[1], a, 0);
    ix.insertRouted(s[0], s[1], b, 1);

    // b touched 8, 7, then the shared root 1: a's leaf blocks 4 and 3 are the least recent
    assertThat(h.match(b, s[0])).isEqualTo(3);
    assertThat(h.match(a, s[0])).isEqualTo(2);
    assertThat(ix.slotEntries(s[0])).isEqualTo(4);
  }

  @Test
  void loweringTheCapacityEvictsLeastRecentFirst() {
    int[] s = ix.allocateSlot();
    PromptKey a = blocks(1, 2, 3, 4, 5, 6);
    ix.insertRouted(s[0], s[1], a, 0);

    ix.setCapacity(s[0], s[1], 2);

    assertThat(h.match(a, s[0])).isEqualTo(2);
  }

  // ------------------------------------------------------------------------------ exact mode

  @Test
  void theFirstKvEventSwitchesTheSlotToExactMode_andRoutedInsertsAreSpeculative() {
    int[] s = ix.allocateSlot();
    assertThat(ix.isExact(s[0])).isFalse();

    ix.kvStored(s[0], s[1], keys(ABCD, 0));
    IndexStore.Insert insert = ix.insertRouted(s[0], s[1], ABCD, 1);

    assertThat(ix.isExact(s[0])).isTrue();
    assertThat(insert.speculative).isTrue();
    assertThat(h.match(ABCD, s[0])).isEqualTo(4);
    ix.endSpeculation(insert);
    assertThat(h.match(ABCD, s[0])).isEqualTo(1);
  }

  @Test
  void endingASpeculation_keepsWhatAnEventTouchedSince() {
    int[] s = ix.allocateSlot();
    ix.kvStored(s[0], s[1], keys(ABCD, 0));
    IndexStore.Insert insert = ix.insertRouted(s[0], s[1], ABCD, 1);

    ix.kvStored(s[0], s[1], keys(ABCD, 1, 2));
    ix.endSpeculation(insert);

    assertThat(h.match(ABCD, s[0])).isEqualTo(3);
    assertThat(ix.slotEntries(s[0])).isEqualTo(3);
  }

  @Test
  void endingAnApproximateInsert_keepsIt() {
    int[] s = ix.allocateSlot();
    IndexStore.Insert insert = ix.insertRouted(s[0], s[1], ABCD, 0);

    ix.endSpeculation(insert);

    assertThat(insert.speculative).isFalse();
    assertThat(h.match(ABCD, s[0])).isEqualTo(4);
  }

  @Test
  void aSpeculativeInsertTrimsTheSlotToTheMirroredCapacity_asTheEnginesPrefillWill() {
    int[] s = ix.allocateSlot();
    ix.setCapacity(s[0], s[1], 4);
    ix.kvStored(s[0], s[1], keys(ABCD, 0, 1));
    ix.kvStored(s[0], s[1], keys(EFGH, 0, 1));

    // routed: all of ABCD, of which the first two blocks are held; EFGH is the least recent
    IndexStore.Insert insert = ix.insertRouted(s[0], s[1], ABCD, 2);

    assertThat(h.match(ABCD, s[0])).as("the routed prompt").isEqualTo(4);
    assertThat(h.match(EFGH, s[0])).as("what its prefill will evict").isZero();
    // the attempt ends with no event for the two new blocks: they are taken back; what the engine
    // stored stays, and the evicted blocks stay evicted (their removal events are on their way)
    ix.endSpeculation(insert);
    assertThat(h.match(ABCD, s[0])).isEqualTo(2);
    assertThat(h.match(EFGH, s[0])).isZero();
  }

  @Test
  void removedAndClearedEventsAlsoMakeTheSlotExact() {
    int[][] s = h.allocate(2);
    ix.insertRouted(s[0][0], s[0][1], ABCD, 0);
    ix.insertRouted(s[1][0], s[1][1], ABCD, 0);

    ix.kvRemoved(s[0][0], s[0][1], keys(ABCD, 2));
    ix.kvCleared(s[1][0], s[1][1]);

    assertThat(ix.isExact(s[0][0])).isTrue();
    assertThat(ix.isExact(s[1][0])).isTrue();
    assertThat(h.match(ABCD, s[0][0], s[1][0])).containsExactly(2, 0);
  }

  @Test
  void exactModeDoesNotTrimToTheMirroredCapacity() {
    int[] s = ix.allocateSlot();
    ix.setCapacity(s[0], s[1], 2);

    ix.kvStored(s[0], s[1], keys(ABCD, 0, 1, 2, 3));
    ix.setCapacity(s[0], s[1], 1);

    assertThat(h.match(ABCD, s[0])).isEqualTo(4);
  }

  @Test
  void storedBlocksAreTouchedLastFirst_soOverBudgetTheDeepestGoesFirst() {
    IndexHarness small = new IndexHarness(PrefixIndex.MIN_BUDGET_BYTES, 10_000);
    int[] t = small.index.allocateSlot();
    int[] tokens = new int[2_000];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = i;
    }
    PromptKey longer = blocks(tokens);

    small.index.kvStored(t[0], t[1], longer.blockHashes());

    long fits = small.index.entryCount();
    assertThat(fits).isBetween(1L, 1_999L);
    assertThat(small.index.estimatedBytes()).isLessThanOrEqualTo(PrefixIndex.MIN_BUDGET_BYTES)
        .as("one block more would not fit")
        .isGreaterThan(PrefixIndex.MIN_BUDGET_BYTES - PrefixIndex.BLOCK_BYTES);
    assertThat(small.match(longer, t[0])).as("only the deepest blocks were evicted")
        .isEqualTo((int) fits);
  }

  // -------------------------------------------------------------------------------- rollback

  @Test
  void rollbackRemovesAnUndisturbedInsert() {
    int[] s = ix.allocateSlot();
    IndexStore.Insert insert = ix.insertRouted(s[0], s[1], ABCD, 0);

    ix.rollback(insert);

    assertThat(h.match(ABCD, s[0])).isZero();
    assertThat(ix.slotEntries(s[0])).isZero();
    assertThat(ix.entryCount()).isZero();
    assertThat(ix.blockCount()).isZero();
  }

  @Test
  void rollbackKeepsBlocksTouchedSince_andThePreviouslyMatchedPrefix() {
    int[] s = ix.allocateSlot();
    ix.insertRouted(s[0], s[1], blocks(1), 0);
    IndexStore.Insert insert = ix.insertRouted(s[0], s[1], ABCD, 1);
    ix.insertRouted(s[0], s[1], blocks(1, 2, 3, 9), 3);

    ix.rollback(insert);

    // block 1 was held before; 2 and 3 were touched by the later insert; only 4 goes
    assertThat(h.match(ABCD, s[0])).isEqualTo(3);
    assertThat(h.match(blocks(1, 2, 3, 9), s[0])).isEqualTo(4);
  }

  @Test
  void rollbackAfterAResetDoesNothing() {
    int[] s = ix.allocateSlot();
    IndexStore.Insert insert = ix.insertRouted(s[0], s[1], ABCD, 0);
    int gen = ix.reset(s[0]);
    ix.insertRouted(s[0], gen, ABCD, 0);

    ix.rollback(insert);

    assertThat(h.match(ABCD, s[0])).isEqualTo(4);
  }

  // ------------------------------------------------------------------------------ generations

  @Test
  void commandsCarryingAStaleGenerationAreDropped() {
    int[] s = ix.allocateSlot();
    int old = s[1];
    ix.insertRouted(s[0], old, ABCD, 0);

    int current = ix.reset(s[0]);
    ix.insertRouted(s[0], old, ABCD, 0);
    ix.kvStored(s[0], old, keys(ABCD, 0, 1));
    ix.kvCleared(s[0], old);
    ix.setCapacity(s[0], old, 1);

    assertThat(current).isNotEqualTo(old);
    assertThat(h.match(ABCD, s[0])).as("reset is a cold cache").isZero();
    assertThat(ix.isExact(s[0])).isFalse();
    ix.insertRouted(s[0], current, ABCD, 0);
    assertThat(h.match(ABCD, s[0])).as("capacity unchanged by the stale command").isEqualTo(4);
  }

  @Test
  void releasedSlotsAreReusedEmpty_underANewGeneration() {
    int[] s = ix.allocateSlot();
    ix.kvStored(s[0], s[1], keys(ABCD, 0, 1, 2, 3));

    ix.release(s[0]);
    int[] again = ix.allocateSlot();

    assertThat(again[0]).isEqualTo(s[0]);
    assertThat(again[1]).isNotEqualTo(s[1]);
    assertThat(ix.isExact(again[0])).isFalse();
    assertThat(h.match(ABCD, again[0])).isZero();
    ix.kvStored(s[0], s[1], keys(ABCD, 0));
    assertThat(h.match(ABCD, again[0])).as("the old generation cannot write").isZero();
  }

  // ---------------------------------------------------------------------------------- budget

  @Test
  void aFleetPastSixtyFourReplicasPaysForTheWiderHolderWords() {
    int[][] s = h.allocate(70);
    long before = ix.estimatedBytes() - ix.slotArrayBytes();

    ix.kvStored(s[69][0], s[69][1], keys(ABCD, 0, 1, 2, 3));

    assertThat(PrefixIndex.runBytes(2)).isEqualTo(PrefixIndex.runBytes(1) * 3 / 2);
    // one run of 4 blocks, one entry, and every run record (the fixed part's too) a word wider
    assertThat(ix.estimatedBytes() - ix.slotArrayBytes() - before).isEqualTo(4L * PrefixIndex.BLOCK_BYTES
        + PrefixIndex.runBytes(2) + PrefixIndex.ENTRY_BYTES
        + PrefixIndex.fixedBytes(2, RunTable.MIN_GARBAGE)
        - PrefixIndex.fixedBytes(1, RunTable.MIN_GARBAGE));
    assertThat(h.match(ABCD, s[69][0], s[0][0])).containsExactly(4, 0);
  }

  @Test
  void memoryIsCountedPerBlockPerRunAndPerReplicaAndRun_notPerReplicaAndBlock() {
    int[][] s = h.allocate(2);
    long before = ix.estimatedBytes() - ix.slotArrayBytes();

    ix.kvStored(s[0][0], s[0][1], keys(ABCD, 0, 1, 2, 3));
    ix.kvStored(s[1][0], s[1][1], keys(ABCD, 0, 1));

    assertThat(ix.entryCount()).isEqualTo(6);
    assertThat(ix.blockCount()).isEqualTo(4);
    // two runs (blocks 0-1 on both, 2-3 on the first), three (replica, run) entries
    assertThat(ix.estimatedBytes() - ix.slotArrayBytes() - before).isEqualTo(4L * PrefixIndex.BLOCK_BYTES
        + 2L * PrefixIndex.runBytes(1) + 3L * PrefixIndex.ENTRY_BYTES);
  }

  @Test
  void theAccountingBoundsTheArrays_andStartsAtItsFixedPart() {
    long empty = ix.estimatedBytes();
    assertThat(empty).isGreaterThanOrEqualTo(PrefixIndex.fixedBytes(1, RunTable.MIN_GARBAGE));
    assertThat(ix.footprintBytes()).isLessThanOrEqualTo(empty);
    int[][] s = h.allocate(3);
    for (int i = 0; i < 50; i++) {
      ix.kvStored(s[i % 3][0], s[i % 3][1], keys(ABCD, 0, 1, 2, 3));
      ix.kvStored(s[i % 3][0], s[i % 3][1], new long[] {1_000L + i, 2_000L + i});
      assertThat(ix.footprintBytes()).isLessThanOrEqualTo(ix.estimatedBytes());
    }
  }

  @Test
  void overTheBudgetTheGloballyLeastRecentEntryIsEvicted() {
    IndexHarness small = new IndexHarness(PrefixIndex.MIN_BUDGET_BYTES, 10_000);
    PrefixIndex six = small.index;
    int[][] s = small.allocate(2);
    int[] a = new int[400];
    int[] b = new int[400];
    for (int i = 0; i < 400; i++) {
      a[i] = i;
      b[i] = 1_000 + i;
    }
    PromptKey older = blocks(a);
    PromptKey newer = blocks(b);

    six.insertRouted(s[0][0], s[0][1], older, 0);
    six.insertRouted(s[1][0], s[1][1], newer, 0);

    long evicted = 800 - six.entryCount();
    assertThat(evicted).isPositive();
    assertThat(six.estimatedBytes()).isLessThanOrEqualTo(six.budgetBytes())
        .as("no more was evicted than needed")
        .isGreaterThan(six.budgetBytes() - PrefixIndex.BLOCK_BYTES);
    assertThat(small.match(newer, s[1][0])).as("the most recent insert is whole").isEqualTo(400);
    assertThat(small.match(older, s[0][0])).as("the older one lost its deepest blocks")
        .isEqualTo(400 - (int) evicted);
  }

  @Test
  void sharedBlocksCostOnlyAnEntryPerExtraHolder() {
    IndexHarness small = new IndexHarness(PrefixIndex.MIN_BUDGET_BYTES, 10_000);
    int[][] s = small.allocate(2);
    int[] t = new int[400];
    for (int i = 0; i < t.length; i++) {
      t[i] = i;
    }
    PromptKey p = blocks(t);
    long before = small.index.estimatedBytes() - small.index.slotArrayBytes();

    small.index.insertRouted(s[0][0], s[0][1], p, 0);
    long one = small.index.estimatedBytes() - small.index.slotArrayBytes();
    small.index.insertRouted(s[1][0], s[1][1], p, 0);

    // one run of 400 blocks: its blocks and record once, then an entry per holder
    assertThat(one - before).isEqualTo(400L * PrefixIndex.BLOCK_BYTES + PrefixIndex.runBytes(1)
        + PrefixIndex.ENTRY_BYTES);
    assertThat(small.index.estimatedBytes() - small.index.slotArrayBytes() - one)
        .isEqualTo(PrefixIndex.ENTRY_BYTES);
    assertThat(small.match(p, s[0][0], s[1][0])).containsExactly(400, 400);
  }

  @Test
  void budgetBelowTheMinimumIsRejected() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new PrefixIndex(PrefixIndex.MIN_BUDGET_BYTES - 1, 1, 1))
        .withMessage("indexBudgetBytes: 65535 (expected: >= 65536)");
  }
}
