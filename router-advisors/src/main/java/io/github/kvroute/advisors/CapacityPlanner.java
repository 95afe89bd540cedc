package io.github.kvroute.advisors;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import java.util.List;
import java.util.Locale;

/**
 * Sizes prefill and decode pools in units of work rather than requests: a request's cost is its
 * tokens, and the two phases are bound by different resources, so each pool is the work it must do
 * over what one worker sustains.
 *
 * <pre>{@code
 * // 4 req/s of 8,000 uncached prompt tokens and 500 output tokens; workers sustain 10,000 prefill
 * // and 800 decode tokens/s: 32,000 / 10,000 -> 4 prefill workers, 2,000 / 800 -> 3 decode workers
 * CapacityPlan plan = CapacityPlanner.withTargetUtilization(1.0).plan(
 *     new WorkloadProfile(4, 8_000, 500, 0), new WorkerThroughput(10_000, 800, "measured"));
 * }</pre>
 *
 * <p>The minimum is the work over the throughput, rounded up: a pool whose mean arrivals equal its mean
 * capacity has no spare time to drain ordinary bursts, so the planned pool divides by a target
 * utilization below 1 (default {@value #DEFAULT_TARGET_UTILIZATION}). Prefix-cache hits discount the
 * prefill work only; every output token is still generated.
 *
 * <p>Immutable and thread-safe.
 */
public final class CapacityPlanner {
  /** Share of each worker's throughput a plan spends by default: 20% headroom for bursts. */
  public static final double DEFAULT_TARGET_UTILIZATION = 0.8;
  /**
   * Loads within this of a whole number round down, so that 32,000 / 8,000 is 4 workers even when the
   * division carries floating-point noise.
   */
  private static final double ROUNDING_SLACK = 1e-9;

  private final double targetUtilization;

  private CapacityPlanner(double targetUtilization) {
    this.targetUtilization = targetUtilization;
  }

  /** {@return a planner spending {@value #DEFAULT_TARGET_UTILIZATION} of each worker} */
  public static CapacityPlanner create() {
    return new CapacityPlanner(DEFAULT_TARGET_UTILIZATION);
  }

  /**
   * A planner spending {@code utilization} of each worker's throughput (1 = no headroom: the minimum).
   *
   * @param utilization the share of each worker's throughput to spend, in {@code (0, 1]}
   * @return the planner
   * @throws IllegalArgumentException unless {@code utilization} is in {@code (0, 1]}
   */
  public static CapacityPlanner withTargetUtilization(double utilization) {
    checkArgument(utilization > 0 && utilization <= 1,
        "targetUtilization: %s (expected: in (0, 1])", utilization);
    return new CapacityPlanner(utilization);
  }

  /** {@return the share of each worker's throughput the plans spend, in {@code (0, 1]}} */
  public double targetUtilization() {
    return targetUtilization;
  }

  /**
   * The pools {@code workload} needs on workers sustaining {@code throughput}.
   *
   * @param workload the traffic to serve
   * @param throughput what one worker sustains
   * @return the plan, with the assumptions it rests on
   */
  public CapacityPlan plan(WorkloadProfile workload, WorkerThroughput throughput) {
    checkNotNull(workload, "workload: null (expected: non-null)");
    checkNotNull(throughput, "throughput: null (expected: non-null)");
    double prefillLoad = workload.uncachedInputTokensPerSecond() / throughput.prefillTokensPerSecond();
    double decodeLoad = workload.outputTokensPerSecond() / throughput.decodeTokensPerSecond();
    List<String> assumptions = List.of(
        format("arrivals %.3f req/s, %.0f prompt tokens and %.0f output tokens per request (means)",
            workload.requestsPerSecond(), workload.meanInputTokens(), workload.meanOutputTokens()),
        format("prefix hit rate %.1f%% of prompt tokens: discounts prefill only",
            100 * workload.prefixHitRate()),
        format("prefill work %.0f uncached tokens/s over %.0f tokens/s per worker = %.2f workers",
            workload.uncachedInputTokensPerSecond(), throughput.prefillTokensPerSecond(), prefillLoad),
        format("decode work %.0f tokens/s over %.0f tokens/s per worker = %.2f workers",
            workload.outputTokensPerSecond(), throughput.decodeTokensPerSecond(), decodeLoad),
        format("worker throughput from: %s", throughput.source()),
        format("headroom: workers run at %.0f%% of their throughput; minimums run at 100%%",
            100 * targetUtilization),
        "colocated replicas: one engine's time serves either phase, so the two loads add");
    return new CapacityPlan(workload, throughput, targetUtilization, prefillLoad, decodeLoad,
        workers(prefillLoad), workers(decodeLoad), workers(prefillLoad / targetUtilization),
        workers(decodeLoad / targetUtilization), workers(prefillLoad + decodeLoad),
        workers((prefillLoad + decodeLoad) / targetUtilization), assumptions);
  }

  /** Whole workers for {@code load}: none for no work, else at least one. */
  private static int workers(double load) {
    return load <= 0 ? 0 : (int) Math.max(1, Math.ceil(load - ROUNDING_SLACK));
  }

  private static String format(String template, Object... args) {
    return String.format(Locale.ROOT, template, args);
  }

  @Override
  public String toString() {
    return "CapacityPlanner{targetUtilization=" + targetUtilization + "}";
  }
}
