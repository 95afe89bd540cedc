package io.github.kvroute.sim;

/**
 * The block ids of the segments a prompt shares with earlier ones (a tenant's system prompt, a
 * document), kept so that a prompt built on a segment seen before copies its ids instead of mixing
 * each again.
 *
 * <h2>Design notes</h2>
 * A block's id is {@code mix(path, i)} (see {@link PromptBuilder}): a function of the segment's
 * chained path and the block's index alone, so the ids of a path's blocks {@code [from, to)} are the
 * same in every prompt that has that path; a kept copy is exactly what mixing them again gives.
 * Direct-mapped: {@value #ENTRIES} entries chosen by the path's low bits (a path is already a mixed
 * 64-bit value), a new path replacing the entry's old one. Only ranges of at most
 * {@value #MAX_BLOCKS} blocks are kept, so the memo holds at most
 * {@code ENTRIES x MAX_BLOCKS x 8} bytes (4 MiB), whatever the workload.
 *
 * <p>Not thread-safe: one per {@link PromptBuilder}.
 */
final class SegmentBlockIds {
  /** Entries of the direct-mapped memo (a power of two). */
  static final int ENTRIES = 256;
  /** Longest block range kept for one path. */
  static final int MAX_BLOCKS = 2_048;

  private final long[] paths = new long[ENTRIES];
  private final int[] froms = new int[ENTRIES];
  private final long[][] ids = new long[ENTRIES][];

  /**
   * Writes the ids of {@code path}'s blocks {@code [from, to)} into {@code out[from, to)}, from the
   * memo when it has them, else mixed (and kept when the range is short enough).
   */
  void fill(long path, int from, int to, long[] out) {
    int e = (int) path & (ENTRIES - 1);
    long[] kept = ids[e];
    if (kept != null && paths[e] == path && froms[e] == from && kept.length == to - from) {
      System.arraycopy(kept, 0, out, from, to - from);
      return;
    }
    for (int i = from; i < to; i++) {
      out[i] = PromptBuilder.mix(path, i);
    }
    if (to - from <= MAX_BLOCKS) {
      paths[e] = path;
      froms[e] = from;
      ids[e] = java.util.Arrays.copyOfRange(out, from, to);
    }
  }
}
