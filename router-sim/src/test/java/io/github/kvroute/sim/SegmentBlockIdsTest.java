package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The memo answers what mixing gives, for kept, replaced and never-kept ranges alike. */
class SegmentBlockIdsTest {
  private static long[] mixed(long path, int from, int to) {
    long[] out = new long[to];
    for (int i = from; i < to; i++) {
      out[i] = PromptBuilder.mix(path, i);
    }
    return out;
  }

  private static long[] filled(SegmentBlockIds memo, long path, int from, int to) {
    long[] out = new long[to];
    memo.fill(path, from, to, out);
    return out;
  }

  @Test
  void keptRangesAreCopiedAsMixed() {
    SegmentBlockIds memo = new SegmentBlockIds();
    assertThat(filled(memo, 42, 3, 40)).containsExactly(mixed(42, 3, 40));
    assertThat(filled(memo, 42, 3, 40)).containsExactly(mixed(42, 3, 40));
  }

  @Test
  void pathsSharingAnEntryReplaceEachOther() {
    SegmentBlockIds memo = new SegmentBlockIds();
    long other = 42 + SegmentBlockIds.ENTRIES;
    memo.fill(42, 0, 10, new long[10]);
    assertThat(filled(memo, other, 0, 10)).containsExactly(mixed(other, 0, 10));
    assertThat(filled(memo, 42, 0, 10)).containsExactly(mixed(42, 0, 10));
  }

  @Test
  void anotherRangeOfAKeptPathIsMixed() {
    SegmentBlockIds memo = new SegmentBlockIds();
    memo.fill(7, 0, 10, new long[10]);
    assertThat(filled(memo, 7, 0, 12)).containsExactly(mixed(7, 0, 12));
    assertThat(filled(memo, 7, 2, 12)).containsExactly(mixed(7, 2, 12));
  }

  @Test
  void rangesPastTheBoundAreMixedEveryTime() {
    SegmentBlockIds memo = new SegmentBlockIds();
    int to = SegmentBlockIds.MAX_BLOCKS + 1;
    assertThat(filled(memo, 9, 0, to)).containsExactly(mixed(9, 0, to));
    assertThat(filled(memo, 9, 0, to)).containsExactly(mixed(9, 0, to));
  }
}
