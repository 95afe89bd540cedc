package io.github.kvroute.sim;

import java.util.Arrays;

/**
 * Tokens computed per replica per time bucket, for the imbalance-over-time chart, in bounded memory.
 *
 * <h2>Design notes</h2>
 * The run's length is unknown while it runs, so work is added to fine buckets that start at 10 ms;
 * when a run outgrows {@value #MAX_FINE} of them, the width doubles and neighbours merge (the sums
 * stay exact). At the end, {@link #buckets(int)} groups whole fine buckets into at most the requested
 * number of equal buckets covering the run.
 *
 * <p>Not thread-safe.
 */
final class WorkTimeline {
  static final int MAX_FINE = 1_024;

  private final long[][] fine;
  private long widthNanos = 10_000_000L;
  private int used;

  WorkTimeline(int replicas) {
    fine = new long[replicas][MAX_FINE];
  }

  void add(int replica, long atNanos, long tokens) {
    long index = atNanos / widthNanos;
    while (index >= MAX_FINE) {
      coarsen();
      index = atNanos / widthNanos;
    }
    fine[replica][(int) index] += tokens;
    used = Math.max(used, (int) index + 1);
  }

  private void coarsen() {
    for (long[] row : fine) {
      for (int i = 0; i < MAX_FINE / 2; i++) {
        row[i] = row[2 * i] + row[2 * i + 1];
      }
      Arrays.fill(row, MAX_FINE / 2, MAX_FINE, 0);
    }
    used = (used + 1) / 2;
    widthNanos *= 2;
  }

  /** The width of the buckets {@link #buckets(int)} returns for {@code maxBuckets}, in nanoseconds. */
  long bucketNanos(int maxBuckets) {
    return widthNanos * group(maxBuckets);
  }

  private int group(int maxBuckets) {
    return Math.max(1, (used + maxBuckets - 1) / maxBuckets);
  }

  /** Per replica, tokens per bucket, at most {@code maxBuckets} buckets from time zero. */
  long[][] buckets(int maxBuckets) {
    int g = group(maxBuckets);
    int n = Math.max(1, (used + g - 1) / g);
    long[][] out = new long[fine.length][n];
    for (int r = 0; r < fine.length; r++) {
      for (int i = 0; i < used; i++) {
        out[r][i / g] += fine[r][i];
      }
    }
    return out;
  }
}
