package io.github.kvroute.advisors;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import java.time.Duration;

/**
 * How {@link HotPrefixAdvisor} decides. The economics: a prefix hit {@code r} times per second whose
 * prefill costs {@code p} ms would cost {@code r x p} ms of engine time per second if every hit
 * recomputed it (the <em>recompute bill</em>); a copy on one more replica costs one prefill. A prefix is
 * advised onto {@code 1 + floor(bill / promoteMillisPerSecond)} replicas (capped by
 * {@code maxReplicas}) once that target has held for {@code promoteAfter} and the copies pay back
 * within {@code paybackWindow}; it falls back to {@code 1 + floor(bill / (promoteMillisPerSecond x
 * demoteFraction))} replicas once that lower target has held for {@code demoteAfter}, and a prefix
 * just demoted is not promoted again for {@code repromoteHoldoff}. At 0.1 hits/s on a 240 ms prefill
 * the bill is 24 ms/s, 2.4% of the default 1,000 ms/s (one engine's worth of prefill per extra
 * replica): noise, not worth a copy; at 10 hits/s it is 2,400 ms/s, and the copies buy back more
 * than two engines.
 *
 * <p>Immutable and thread-safe.
 *
 * @param promoteMillisPerSecond recompute bill that justifies each replica beyond the first
 * @param demoteFraction the demotion band: targets for demotion use this fraction of
 *     {@code promoteMillisPerSecond}, so a bill hovering at a threshold does not flip the advice
 * @param promoteAfter how long a higher target must hold before promotion
 * @param demoteAfter how long a lower target must hold before demotion (sustained absence)
 * @param repromoteHoldoff after a demotion, how long the prefix may not be promoted again
 * @param rateWindow the time constant of the hit-rate average
 * @param paybackWindow the recompute bill over this window must cover the new copies' prefills
 * @param maxReplicas most replicas a prefix is advised onto (at most the fleet's size)
 * @param maxTrackedPrefixes bound of the table of prefixes whose rate is tracked
 * @param sketchWidth counters per row of the admission sketch (a power of two)
 * @param admitHits hits within one evaluation interval before a prefix is tracked
 */
public record ReplicationConfig(double promoteMillisPerSecond, double demoteFraction,
    Duration promoteAfter, Duration demoteAfter, Duration repromoteHoldoff, Duration rateWindow,
    Duration paybackWindow, int maxReplicas, int maxTrackedPrefixes, int sketchWidth,
    int admitHits) {

  /**
   * @param promoteMillisPerSecond recompute bill that justifies each replica beyond the first
   * @param demoteFraction the demotion band: targets for demotion use this fraction of
   *     {@code promoteMillisPerSecond}, so a bill hovering at a threshold does not flip the advice
   * @param promoteAfter how long a higher target must hold before promotion
   * @param demoteAfter how long a lower target must hold before demotion (sustained absence)
   * @param repromoteHoldoff after a demotion, how long the prefix may not be promoted again
   * @param rateWindow the time constant of the hit-rate average
   * @param paybackWindow the recompute bill over this window must cover the new copies' prefills
   * @param maxReplicas most replicas a prefix is advised onto (at most the fleet's size)
   * @param maxTrackedPrefixes bound of the table of prefixes whose rate is tracked
   * @param sketchWidth counters per row of the admission sketch (a power of two)
   * @param admitHits hits within one evaluation interval before a prefix is tracked
   * @throws IllegalArgumentException if a value is out of range
   */
  public ReplicationConfig {
    checkArgument(promoteMillisPerSecond > 0 && Double.isFinite(promoteMillisPerSecond),
        "promoteMillisPerSecond: %s (expected: finite and > 0)", promoteMillisPerSecond);
    checkArgument(demoteFraction > 0 && demoteFraction <= 1,
        "demoteFraction: %s (expected: in (0, 1])", demoteFraction);
    nonNegative(promoteAfter, "promoteAfter");
    nonNegative(demoteAfter, "demoteAfter");
    nonNegative(repromoteHoldoff, "repromoteHoldoff");
    positive(rateWindow, "rateWindow");
    positive(paybackWindow, "paybackWindow");
    checkArgument(maxReplicas >= 1 && maxReplicas <= 4_096,
        "maxReplicas: %s (expected: in [1, 4096])", maxReplicas);
    checkArgument(maxTrackedPrefixes >= 1 && maxTrackedPrefixes <= 1 << 20,
        "maxTrackedPrefixes: %s (expected: in [1, 1048576])", maxTrackedPrefixes);
    checkArgument(sketchWidth >= 16 && sketchWidth <= 1 << 24 && Integer.bitCount(sketchWidth) == 1,
        "sketchWidth: %s (expected: a power of two in [16, 16777216])", sketchWidth);
    checkArgument(admitHits >= 1, "admitHits: %s (expected: >= 1)", admitHits);
  }

  /**
   * {@return 1,000 ms/s per extra replica, demotion band 0.5, promote after 10 s, demote after 60
   * s, 60 s holdoff, 10 s rate window, 60 s payback, at most 4 replicas, 1,024 tracked prefixes, a
   * sketch of 4 x 4,096 counters (64 KiB), tracked from the second hit in an interval}
   */
  public static ReplicationConfig defaults() {
    return new ReplicationConfig(1_000, 0.5, Duration.ofSeconds(10), Duration.ofSeconds(60),
        Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(60), 4, 1_024, 4_096, 2);
  }

  /**
   * This configuration with another {@code maxReplicas}.
   *
   * @param v the most replicas one prefix is advised onto, in {@code [1, 4096]}
   * @return a copy with {@code maxReplicas = v}
   */
  public ReplicationConfig withMaxReplicas(int v) {
    return new ReplicationConfig(promoteMillisPerSecond, demoteFraction, promoteAfter, demoteAfter,
        repromoteHoldoff, rateWindow, paybackWindow, v, maxTrackedPrefixes, sketchWidth, admitHits);
  }

  /**
   * This configuration with another {@code promoteMillisPerSecond}.
   *
   * @param v the recompute bill, in milliseconds of prefill per second, that justifies each replica
   *     beyond the first; finite, {@code > 0}
   * @return a copy with {@code promoteMillisPerSecond = v}
   */
  public ReplicationConfig withPromoteMillisPerSecond(double v) {
    return new ReplicationConfig(v, demoteFraction, promoteAfter, demoteAfter, repromoteHoldoff,
        rateWindow, paybackWindow, maxReplicas, maxTrackedPrefixes, sketchWidth, admitHits);
  }

  /**
   * This configuration with other promotion and demotion delays and holdoff.
   *
   * @param promoteAfter how long a higher target must hold before promotion; not negative
   * @param demoteAfter how long a lower target must hold before demotion; not negative
   * @param repromoteHoldoff after a demotion, how long the prefix may not be promoted again; not
   *     negative
   * @return a copy with these delays
   */
  public ReplicationConfig withTiming(Duration promoteAfter, Duration demoteAfter,
      Duration repromoteHoldoff) {
    return new ReplicationConfig(promoteMillisPerSecond, demoteFraction, promoteAfter, demoteAfter,
        repromoteHoldoff, rateWindow, paybackWindow, maxReplicas, maxTrackedPrefixes, sketchWidth,
        admitHits);
  }

  /** Replicas a recompute bill of {@code millisPerSecond} justifies, for promotion. */
  int promotionTarget(double millisPerSecond) {
    return target(millisPerSecond, promoteMillisPerSecond);
  }

  /** Replicas a recompute bill of {@code millisPerSecond} still justifies, for demotion. */
  int demotionTarget(double millisPerSecond) {
    return target(millisPerSecond, promoteMillisPerSecond * demoteFraction);
  }

  private int target(double millisPerSecond, double perReplica) {
    double extra = Math.floor(millisPerSecond / perReplica);
    return (int) Math.min(maxReplicas, 1 + Math.min(extra, 4_096));
  }

  private static void nonNegative(Duration d, String name) {
    checkNotNull(d, "%s: null (expected: a duration)", name);
    checkArgument(!d.isNegative(), "%s: %s (expected: >= 0)", name, d);
  }

  private static void positive(Duration d, String name) {
    checkNotNull(d, "%s: null (expected: a duration)", name);
    checkArgument(!d.isNegative() && !d.isZero(), "%s: %s (expected: > 0)", name, d);
  }
}
