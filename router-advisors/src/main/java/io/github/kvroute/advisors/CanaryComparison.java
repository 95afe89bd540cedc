package io.github.kvroute.advisors;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.Locale;

/**
 * Compares a canary's latency with the stable version's fairly: a cold canary looks slow for a reason
 * that is not the model (its cache namespace starts empty, while the stable one rides warm caches).
 * Each arm's TTFT is kept apart for requests that hit a cached prefix and requests that did not, so
 * model against model is read on like-for-like rows; and when the arms' hit ratios differ by more than
 * a threshold, the comparison says the aggregate numbers measure cache temperature.
 *
 * <p>Memory: eight counters per arm.
 *
 * <p>Thread-safety: thread-safe; {@link #record} and {@link #report} take one lock.
 */
public final class CanaryComparison {
  /** One arm's TTFT, split by prefix hits. Immutable. */
  public record Arm(String version, long hits, double hitMeanTtftMillis, long misses,
      double missMeanTtftMillis) {
    /** {@return share of this arm's requests that reused a cached prefix; 0 without requests} */
    public double hitRatio() {
      return hits + misses == 0 ? 0 : (double) hits / (hits + misses);
    }

    /**
     * {@return mean TTFT over every request, hits and misses together (what an unfair comparison
     * reads)}
     */
    public double meanTtftMillis() {
      return hits + misses == 0 ? 0
          : (hits * hitMeanTtftMillis + misses * missMeanTtftMillis) / (hits + misses);
    }
  }

  /**
   * The comparison now.
   *
   * @param stable the stable arm
   * @param canary the canary arm
   * @param hitRatioGap the canary's hit ratio minus the stable's
   * @param cacheTemperatureDiffers whether that gap exceeds the threshold: read the per-row TTFTs,
   *     not the means
   */
  public record Report(Arm stable, Arm canary, double hitRatioGap,
      boolean cacheTemperatureDiffers) {
    /** {@return one line for a log or dashboard} */
    public String summary() {
      return String.format(Locale.ROOT, "%s: hit %.0f%%, TTFT hit %.0f ms / miss %.0f ms; %s: hit"
          + " %.0f%%, TTFT hit %.0f ms / miss %.0f ms%s", stable.version(), 100 * stable.hitRatio(),
          stable.hitMeanTtftMillis(), stable.missMeanTtftMillis(), canary.version(),
          100 * canary.hitRatio(), canary.hitMeanTtftMillis(), canary.missMeanTtftMillis(),
          cacheTemperatureDiffers ? "; hit ratios differ: compare like rows, not means" : "");
    }
  }

  private final CanarySplit split;
  private final double maxHitRatioGap;
  @GuardedBy("this")
  private final long[] count = new long[4];
  @GuardedBy("this")
  private final double[] sumMillis = new double[4];

  /**
   * @param split the split whose two arms are compared
   * @param maxHitRatioGap hit ratios further apart than this flag the comparison, in [0, 1]
   */
  public CanaryComparison(CanarySplit split, double maxHitRatioGap) {
    this.split = checkNotNull(split, "split: null (expected: non-null)");
    checkArgument(maxHitRatioGap >= 0 && maxHitRatioGap <= 1,
        "maxHitRatioGap: %s (expected: in [0, 1])", maxHitRatioGap);
    this.maxHitRatioGap = maxHitRatioGap;
  }

  /**
   * One completed request of {@code version}: its TTFT, and whether it reused a cached prefix.
   *
   * @param version the arm's version: the split's stable or canary one
   * @param ttft the request's time to first token; not negative
   * @param prefixHit whether it reused a cached prefix
   * @throws IllegalArgumentException if the version is neither arm's or the TTFT is negative
   */
  public void record(String version, Duration ttft, boolean prefixHit) {
    checkArgument(split.stable().equals(version) || split.canary().equals(version),
        "version: %s (expected: %s or %s)", version, split.stable(), split.canary());
    checkArgument(ttft != null && !ttft.isNegative(), "ttft: %s (expected: >= 0)", ttft);
    int i = (split.canary().equals(version) ? 2 : 0) + (prefixHit ? 0 : 1);
    synchronized (this) {
      count[i]++;
      sumMillis[i] += ttft.toNanos() / 1e6;
    }
  }

  /**
   * {@return both arms now, and whether their cache temperatures differ too much for a plain
   * comparison}
   */
  public synchronized Report report() {
    Arm stable = arm(split.stable(), 0);
    Arm canary = arm(split.canary(), 2);
    double gap = canary.hitRatio() - stable.hitRatio();
    return new Report(stable, canary, gap, Math.abs(gap) > maxHitRatioGap);
  }

  @GuardedBy("this")
  private Arm arm(String version, int i) {
    return new Arm(version, count[i], mean(i), count[i + 1], mean(i + 1));
  }

  @GuardedBy("this")
  private double mean(int i) {
    return count[i] == 0 ? 0 : sumMillis[i] / count[i];
  }
}
