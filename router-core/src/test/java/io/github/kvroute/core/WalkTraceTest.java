package io.github.kvroute.core;

import static io.github.kvroute.core.IndexHarness.blocks;
import static io.github.kvroute.core.IndexHarness.keys;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.PromptKey;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * What a walk records for the routed insert after it ({@link WalkTrace}), and that the insert uses
 * it only while the arena positions it gives still hold.
 */
class WalkTraceTest {
  private static final PromptKey P = blocks(1, 2, 3, 4, 5, 6);

  @Test
  void consecutivePositionsAreOneStretch_aJumpStartsAnother() {
    WalkTrace t = new WalkTrace();
    t.begin(P, 7);
    t.found(0, 10);
    t.found(2, 12); // continues 10, 11
    t.found(3, 40);
    t.found(5, 42);
    t.end(6);

    assertThat(t.stretches()).isEqualTo(2);
    assertThat(new int[] {t.from(0), t.at(0), t.from(1), t.at(1)})
        .containsExactly(0, 10, 3, 40);
    assertThat(t.usable(P, 7, 6)).isEqualTo(6);
    assertThat(t.usable(P, 7, 4)).as("no more than the insert's count").isEqualTo(4);
  }

  @Test
  void anotherPromptOrCompactionCountOrAClearedTraceGivesNothing() {
    WalkTrace t = new WalkTrace();
    t.begin(P, 7);
    t.found(0, 10);
    t.end(6);

    assertThat(t.usable(blocks(1, 2, 3, 4, 5, 6), 7, 6)).as("an equal prompt, not this one")
        .isZero();
    assertThat(t.usable(P, 8, 6)).as("a compaction since").isZero();
    t.clear();
    assertThat(t.usable(P, 7, 6)).isZero();
  }

  @Test
  void pastItsMostStretches_theBlocksFromTheFirstLeftOutAreNotTraced() {
    WalkTrace t = new WalkTrace();
    t.begin(P, 0);
    int n = WalkTrace.MAX_STRETCHES + 5;
    for (int i = 0; i < n; i++) {
      t.found(i, 3 * i); // never consecutive
    }
    t.end(n);

    assertThat(t.stretches()).isEqualTo(WalkTrace.MAX_STRETCHES);
    assertThat(t.usable(P, 0, n)).isEqualTo(WalkTrace.MAX_STRETCHES);
  }

  @Test
  void aWalkRecordsThePromptsRunsAsTheyLieInTheArena() {
    IndexHarness h = new IndexHarness(1L << 30, 1_000);
    int[][] s = h.allocate(2);
    PromptKey shared = blocks(1, 2, 3);
    PromptKey longer = blocks(1, 2, 3, 9, 8);
    h.index.kvStored(s[0][0], s[0][1], keys(shared, 0, 1, 2));
    h.index.kvStored(s[1][0], s[1][1], keys(longer, 3, 4)); // appended after the shared three
    h.index.kvStored(s[1][0], s[1][1], keys(longer, 0, 1, 2));

    WalkTrace t = new WalkTrace();
    long[] mask = {(1L << s[0][0]) | (1L << s[1][0])};
    h.index.match(longer, mask, 1, new long[1], new int[64], t);

    // blocks 0-2 at positions 0-2 (run of both slots), blocks 3-4 at 3-4: one stretch
    assertThat(t.stretches()).isEqualTo(1);
    assertThat(t.at(0)).isZero();
    assertThat(t.usable(longer, h.index.compactions(), 5)).isEqualTo(5);
  }

  /**
   * A compaction between the walk and the insert moves the blocks the walk found: the insert must
   * find them again. (Taking the walk's positions regardless fails this test.)
   */
  @Test
  void aCompactionBetweenTheWalkAndTheInsert_theInsertFindsTheMovedBlocks() {
    PrefixIndex ix = new PrefixIndex(1L << 30, 1_000, 1 << 16, 0);
    int[] a = ix.allocateSlot();
    int[] b = ix.allocateSlot();
    int[] c = ix.allocateSlot();
    PromptKey first = blocks(IntStream.range(100, 108).toArray());
    PromptKey second = blocks(IntStream.range(200, 208).toArray());
    ix.kvStored(a[0], a[1], first.blockHashes());
    ix.kvStored(b[0], b[1], second.blockHashes());
    WalkTrace t = new WalkTrace();
    long[] mask = {(1L << b[0]) | (1L << c[0])};
    ix.match(second, mask, 1, new long[1], new int[64], t);
    int before = ix.compactions();

    ix.kvRemoved(a[0], a[1], first.blockHashes()); // dead blocks ahead of `second`'s: compacted
    assertThat(ix.compactions()).as("the removal compacted the table").isGreaterThan(before);
    assertThat(t.usable(second, ix.compactions(), 8)).as("the walk's positions, moved since")
        .isZero();
    IndexStore.Insert insert = new IndexStore.Insert();
    assertThat(ix.insertRouted(insert, c[0], c[1], second, 0, t)).isTrue();

    assertThat(matchOn(ix, second, c[0])).isEqualTo(8);
    assertThat(matchOn(ix, second, b[0])).isEqualTo(8);
    assertThat(ix.slotEntries(c[0])).isEqualTo(8);
    assertThat(ix.entryCount()).isEqualTo(16);
  }

  private static int matchOn(PrefixIndex ix, PromptKey p, int slot) {
    int[] out = new int[64];
    ix.match(p, new long[] {1L << slot}, 1, new long[1], out);
    return out[slot];
  }
}
