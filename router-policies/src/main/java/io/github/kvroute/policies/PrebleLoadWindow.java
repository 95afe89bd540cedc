package io.github.kvroute.policies;

/**
 * One replica's recent work for {@code preble-e2}: the prefill milliseconds and planned output tokens
 * of the requests routed to it over a sliding window, kept in {@value #BUCKETS} time buckets so memory
 * stays constant whatever the arrival rate (Preble's {@code SlidingWindowHistogram} keeps one entry per
 * request). An entry leaves the window at most one bucket ({@code window / 60}) late.
 *
 * <p>Thread-safety: every method is synchronized on the window (one per replica).
 */
final class PrebleLoadWindow {
  static final int BUCKETS = 60;

  private final long bucketNanos;
  private final long[] slotBucket = new long[BUCKETS];
  private final double[] prefillMillis = new double[BUCKETS];
  private final long[] outputTokens = new long[BUCKETS];
  private final int[] counts = new int[BUCKETS];

  PrebleLoadWindow(long windowNanos) {
    this.bucketNanos = Math.max(1, windowNanos / BUCKETS);
    java.util.Arrays.fill(slotBucket, Long.MIN_VALUE);
  }

  /** Records one routed request at {@code nowNanos}. */
  synchronized void add(long nowNanos, double prefillMs, int plannedOutputTokens) {
    long bucket = Math.floorDiv(nowNanos, bucketNanos);
    int slot = (int) Math.floorMod(bucket, (long) BUCKETS);
    if (slotBucket[slot] != bucket) {
      slotBucket[slot] = bucket;
      prefillMillis[slot] = 0;
      outputTokens[slot] = 0;
      counts[slot] = 0;
    }
    prefillMillis[slot] += prefillMs;
    outputTokens[slot] += plannedOutputTokens;
    counts[slot]++;
  }

  /** Prefill milliseconds routed here within the window ending at {@code nowNanos}. */
  synchronized double prefillMillis(long nowNanos) {
    long current = Math.floorDiv(nowNanos, bucketNanos);
    double sum = 0;
    for (int i = 0; i < BUCKETS; i++) {
      if (live(slotBucket[i], current)) {
        sum += prefillMillis[i];
      }
    }
    return sum;
  }

  /** Mean planned output of the requests routed here within the window; NaN when there were none. */
  synchronized double meanOutputTokens(long nowNanos) {
    long current = Math.floorDiv(nowNanos, bucketNanos);
    long tokens = 0;
    long count = 0;
    for (int i = 0; i < BUCKETS; i++) {
      if (live(slotBucket[i], current)) {
        tokens += outputTokens[i];
        count += counts[i];
      }
    }
    return count == 0 ? Double.NaN : (double) tokens / count;
  }

  private static boolean live(long bucket, long current) {
    return bucket != Long.MIN_VALUE && bucket <= current && bucket > current - BUCKETS;
  }
}
