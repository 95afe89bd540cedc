package io.github.kvroute.advisors;

/**
 * A count-min sketch of hits per prefix in the current evaluation interval: the gate that keeps
 * one-off prefixes out of {@link HotPrefixAdvisor}'s bounded table of tracked prefixes (the admission
 * idea of TinyLFU, Einziger, Friedman and Manes, "TinyLFU: A Highly Efficient Cache Admission
 * Policy", 2017). Four rows of {@code width} saturating counters; an estimate is never below the true
 * count, and above it only by collisions.
 *
 * <p>Memory: {@code 4 x width x 4} bytes, fixed at construction.
 *
 * <p>Not thread-safe: the advisor guards it with its lock.
 */
final class HitSketch {
  private static final int ROWS = 4;
  private static final long[] SEEDS = {
      0x9E3779B97F4A7C15L, 0xC2B2AE3D27D4EB4FL, 0x165667B19E3779F9L, 0x27D4EB2F165667C5L};

  private final int[][] counts;
  private final int mask;

  /** @param width counters per row, a power of two */
  HitSketch(int width) {
    if (width < 16 || Integer.bitCount(width) != 1) {
      throw new IllegalArgumentException("width: " + width + " (expected: a power of two >= 16)");
    }
    counts = new int[ROWS][width];
    mask = width - 1;
  }

  /** Counts one hit of {@code key} and returns the new estimate (conservative update). */
  int increment(long key) {
    int estimate = estimate(key);
    for (int r = 0; r < ROWS; r++) {
      int i = index(key, r);
      if (counts[r][i] == estimate && estimate < Integer.MAX_VALUE) {
        counts[r][i]++;
      }
    }
    return estimate + (estimate < Integer.MAX_VALUE ? 1 : 0);
  }

  /** Hits of {@code key} since the last {@link #reset()}: never fewer than the true count. */
  int estimate(long key) {
    int min = Integer.MAX_VALUE;
    for (int r = 0; r < ROWS; r++) {
      min = Math.min(min, counts[r][index(key, r)]);
    }
    return min;
  }

  /** Forgets every count: a new interval begins. */
  void reset() {
    for (int[] row : counts) {
      java.util.Arrays.fill(row, 0);
    }
  }

  /** Bytes of counters. */
  long bytes() {
    return (long) ROWS * counts[0].length * Integer.BYTES;
  }

  private int index(long key, int row) {
    long h = (key ^ SEEDS[row]) * 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    h ^= h >>> 33;
    return (int) h & mask;
  }
}
