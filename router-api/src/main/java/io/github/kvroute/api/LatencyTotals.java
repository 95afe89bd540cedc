package io.github.kvroute.api;

import java.util.OptionalDouble;

/**
 * The running sum and count of a Prometheus latency histogram, as an engine exports them
 * ({@code NAME_sum} and {@code NAME_count}, for example {@code vllm:time_to_first_token_seconds}). Both
 * only grow within a process's life, so the difference of two reads is the mean over the requests
 * observed between them; the buckets are not carried (a router needs means, not quantiles).
 *
 * @param sumSeconds the {@code _sum} series: total seconds observed
 * @param count the {@code _count} series: observations
 *
 * <p>Immutable and thread-safe.
 */
public record LatencyTotals(double sumSeconds, long count) {
  /**
   * @param sumSeconds the {@code _sum} series: total seconds observed
   * @param count the {@code _count} series: observations
   * @throws IllegalArgumentException if a value is negative or not finite, or a sum has no count
   */
  public LatencyTotals {
    Checks.nonNegativeFinite(sumSeconds, "sumSeconds");
    Checks.atLeast(count, 0L, "count");
    Checks.argument(count > 0 || sumSeconds == 0, "sumSeconds", sumSeconds, "0 when count is 0");
  }

  /** {@return mean seconds per observation; empty before the first observation} */
  public OptionalDouble meanSeconds() {
    return count == 0 ? OptionalDouble.empty() : OptionalDouble.of(sumSeconds / count);
  }
}
