package io.github.kvroute.advisors;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import java.time.Duration;

/**
 * How {@link AutoscaleAdvisor} decides.
 *
 * <p>Immutable and thread-safe.
 *
 * @param ttftSloMillis the TTFT objective queueing delay is measured against
 * @param upQueueFraction queueing delay above this share of the objective is pressure now
 * @param downQueueFraction a replica may go only while queueing delay is below this share
 * @param upUtilization add replicas when the forecast load exceeds this share of the advised ones
 * @param downUtilization remove one when the forecast load fits one replica fewer at this share (below
 *     {@code upUtilization}: the band between them is the hysteresis)
 * @param kvPressure KV utilization above this is pressure now, and blocks scaling down
 * @param coldStart how long a new replica takes to serve: the forecast horizon (a burst shorter than
 *     this is over before a replica started for it would help)
 * @param cooldown after a change of advice, no other change for this long
 * @param bucket the granularity of the load history
 * @param minWarmReplicas never advise fewer
 * @param maxReplicas never advise more
 */
public record AutoscaleConfig(double ttftSloMillis, double upQueueFraction,
    double downQueueFraction, double upUtilization, double downUtilization, double kvPressure,
    Duration coldStart, Duration cooldown, Duration bucket, int minWarmReplicas, int maxReplicas) {

  /**
   * @param ttftSloMillis the TTFT objective queueing delay is measured against
   * @param upQueueFraction queueing delay above this share of the objective is pressure now
   * @param downQueueFraction a replica may go only while queueing delay is below this share
   * @param upUtilization add replicas when the forecast load exceeds this share of the advised ones
   * @param downUtilization remove one when the forecast load fits one replica fewer at this share
   *     (below {@code upUtilization}: the band between them is the hysteresis)
   * @param kvPressure KV utilization above this is pressure now, and blocks scaling down
   * @param coldStart how long a new replica takes to serve: the forecast horizon (a burst shorter
   *     than this is over before a replica started for it would help)
   * @param cooldown after a change of advice, no other change for this long
   * @param bucket the granularity of the load history
   * @param minWarmReplicas never advise fewer
   * @param maxReplicas never advise more
   * @throws IllegalArgumentException if a value is out of range or the thresholds cross
   */
  public AutoscaleConfig {
    checkArgument(ttftSloMillis > 0 && Double.isFinite(ttftSloMillis),
        "ttftSloMillis: %s (expected: finite and > 0)", ttftSloMillis);
    checkArgument(downQueueFraction >= 0 && downQueueFraction < upQueueFraction,
        "downQueueFraction: %s (expected: in [0, upQueueFraction = %s))", downQueueFraction,
        upQueueFraction);
    checkArgument(downUtilization > 0 && downUtilization < upUtilization && upUtilization <= 1,
        "utilization: down %s, up %s (expected: 0 < down < up <= 1)", downUtilization,
        upUtilization);
    checkArgument(kvPressure > 0 && kvPressure <= 1, "kvPressure: %s (expected: in (0, 1])",
        kvPressure);
    positive(coldStart, "coldStart");
    checkNotNull(cooldown, "cooldown: null (expected: a duration)");
    checkArgument(!cooldown.isNegative(), "cooldown: %s (expected: >= 0)", cooldown);
    positive(bucket, "bucket");
    checkArgument(coldStart.compareTo(bucket) >= 0 && coldStart.toNanos() / bucket.toNanos() <= 10_000,
        "bucket: %s (expected: at most coldStart = %s, and at least 1/10,000 of it)", bucket,
        coldStart);
    checkArgument(minWarmReplicas >= 0 && minWarmReplicas <= maxReplicas && maxReplicas >= 1,
        "replicas: min %s, max %s (expected: 0 <= min <= max, max >= 1)", minWarmReplicas,
        maxReplicas);
  }

  /**
   * {@return a 1 s objective; pressure above 50% of it, scale-down below 10%; add above 80%
   * forecast utilization, remove below 50%; KV pressure at 90%; a 4-minute cold start and cooldown;
   * 10 s buckets; a warm pool of 2, at most 64 replicas}
   */
  public static AutoscaleConfig defaults() {
    return new AutoscaleConfig(1_000, 0.5, 0.1, 0.8, 0.5, 0.9, Duration.ofMinutes(4),
        Duration.ofMinutes(4), Duration.ofSeconds(10), 2, 64);
  }

  /**
   * This configuration with another objective.
   *
   * @param v the TTFT objective in milliseconds; finite and positive
   * @return a copy with {@code ttftSloMillis = v}
   */
  public AutoscaleConfig withTtftSloMillis(double v) {
    return new AutoscaleConfig(v, upQueueFraction, downQueueFraction, upUtilization,
        downUtilization, kvPressure, coldStart, cooldown, bucket, minWarmReplicas, maxReplicas);
  }

  /**
   * This configuration with another cold start (the horizon) and cooldown.
   *
   * @param coldStart how long a new replica takes to serve; positive, at least one bucket
   * @param cooldown the least time between two changes of advice; not negative
   * @return a copy with these durations
   */
  public AutoscaleConfig withColdStart(Duration coldStart, Duration cooldown) {
    return new AutoscaleConfig(ttftSloMillis, upQueueFraction, downQueueFraction, upUtilization,
        downUtilization, kvPressure, coldStart, cooldown, bucket, minWarmReplicas, maxReplicas);
  }

  /**
   * This configuration with another warm pool and ceiling.
   *
   * @param minWarm replicas never advised away; in {@code [0, max]}
   * @param max the most replicas advised; {@code >= 1}
   * @return a copy with these bounds
   */
  public AutoscaleConfig withReplicas(int minWarm, int max) {
    return new AutoscaleConfig(ttftSloMillis, upQueueFraction, downQueueFraction, upUtilization,
        downUtilization, kvPressure, coldStart, cooldown, bucket, minWarm, max);
  }

  /** Buckets in one forecast window: twice the cold start. */
  int windowBuckets() {
    return (int) Math.max(1, 2 * coldStart.toNanos() / bucket.toNanos());
  }

  private static void positive(Duration d, String name) {
    checkNotNull(d, "%s: null (expected: a duration)", name);
    checkArgument(!d.isNegative() && !d.isZero(), "%s: %s (expected: > 0)", name, d);
  }
}
