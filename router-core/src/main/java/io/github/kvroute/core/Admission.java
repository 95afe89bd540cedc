package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.Priority;
import io.github.kvroute.api.Request;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * The standard {@link AdmissionController}: a deadline veto and priority-aware fleet backpressure.
 *
 * <ul>
 *   <li><b>Deadline.</b> A request with a TTFT budget is admitted only if the chosen replica's predicted
 *       cost fits what is left of it (budget minus upstream time minus time since arrival). For
 *       example (docs/cost-model.md, "A deadline and its retry-after"): 350 ms spent of a 600 ms
 *       SLO leaves 250 ms, so replicas predicted at 240 and 220 ms are admissible and one at 300 ms
 *       is not; with 400 ms spent nothing fits and the request is rejected. The retry-after comes
 *       from the same estimates: the least time after which some candidate's queue will have
 *       drained enough for it to fit, or none when even an empty queue would not (waiting cannot
 *       help).
 *       <p>The queue in that prediction is the one outcomes taught: the router's estimate times the
 *       replica's learnt queue factor, plus {@code z} standard deviations of the factor's observed
 *       spread for the configured {@linkplain Builder#deadlineConfidence confidence}. Until outcomes
 *       arrive it is the estimate itself, so the worked example above holds as stated. Admitting a
 *       request only when it will probably make its deadline matters under overload: one admitted at
 *       the edge misses about half the time and delays those behind it.
 *   <li><b>Backpressure.</b> Per priority, an optional limit on the best available queue wait: when
 *       even the least-loaded candidate would make the request wait longer, the fleet is overloaded for
 *       that class and the request is rejected early, shedding {@link Priority#BATCH} first.
 *   <li><b>Fleet backpressure and tenants</b> (off by default): the fleet's whole backlog against
 *       a limit per tier with a share reserved for interactive traffic, and per-tenant fair shares
 *       under pressure ({@link Builder#fleetBacklogLimit}, {@link Builder#tenantFairness}).
 *   <li><b>Decode readiness.</b> A disaggregated pair whose decode replica cannot hold the request's
 *       KV by the time its prefill ends is rejected ({@link PairSelection}).
 * </ul>
 *
 * <p>Thread-safety: the controllers built here are thread-safe; immutable unless tenant fairness is
 * on, whose per-tenant rates are guarded by one lock.
 */
public final class Admission {
  /** See {@link Builder#deadlineConfidence}. */
  public static final double DEFAULT_DEADLINE_CONFIDENCE = 0.9;
  /** See {@link Builder#interactiveReserve}. */
  public static final double DEFAULT_INTERACTIVE_RESERVE = 0.2;

  private Admission() {}

  /**
   * {@return the standard controller: deadline veto on; batch work shed when the best queue exceeds
   * 1 s}
   */
  public static AdmissionController standard() {
    return newBuilder().build();
  }

  /**
   * {@return a builder with the {@linkplain #standard() standard} settings, each option settable
   * once}
   */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** Builds the standard controller. Not thread-safe; each option may be set once. */
  public static final class Builder {
    private boolean deadline = true;
    private final Map<Priority, Double> queueLimitMillis = new EnumMap<>(Priority.class);
    private double minRetryAfterMillis = 10;
    private double deadlineConfidence = DEFAULT_DEADLINE_CONFIDENCE;
    private double fleetBacklogLimitMillis = Double.NaN;
    private double interactiveReserve = DEFAULT_INTERACTIVE_RESERVE;
    private Map<String, Double> tenantWeights;
    /** This builder's options, each set once ({@link SetOnce}). */
    private enum Option {
      DEADLINE, DEADLINE_CONFIDENCE, MIN_RETRY_AFTER, FLEET_BACKLOG_LIMIT, INTERACTIVE_RESERVE,
      TENANT_FAIRNESS
    }

    private long set;
    /** A bit per {@link Priority} whose queue limit was set. */
    private long queueLimitsSet;

    private Builder() {
      queueLimitMillis.put(Priority.BATCH, 1_000.0);
    }


    /**
     * Whether to reject requests whose predicted TTFT exceeds their remaining budget. Default on.
     *
     * @param enabled {@code false} to admit requests whatever their deadline
     * @return this builder
     */
    public Builder deadline(boolean enabled) {
      set = SetOnce.mark(set, Option.DEADLINE);
      deadline = enabled;
      return this;
    }

    /**
     * Rejects requests of {@code priority} as overloaded when the best candidate's queue exceeds
     * {@code limit}; {@code null} removes the limit. Default: 1 s for BATCH, none otherwise.
     *
     * @param priority the class limited
     * @param limit the longest queue, not negative; {@code null} for none
     * @return this builder
     */
    public Builder queueLimit(Priority priority, Duration limit) {
      checkNotNull(priority, "priority: null (expected: non-null)");
      queueLimitsSet = SetOnce.mark(queueLimitsSet, priority.ordinal(), "queueLimit " + priority);
      if (limit == null) {
        queueLimitMillis.remove(priority);
      } else {
        checkArgument(!limit.isNegative(), "queueLimit: %s (expected: >= 0)", limit);
        queueLimitMillis.put(priority, Durations.millis(limit));
      }
      return this;
    }

    /**
     * How sure admission must be that a request will meet its deadline: it is admitted only if its
     * predicted TTFT, with the queue calibrated by outcomes plus {@code z(confidence)} standard
     * deviations of the queue's observed spread, fits the remaining budget. 0.5 judges by the
     * calibrated mean alone. Default {@value #DEFAULT_DEADLINE_CONFIDENCE}.
     *
     * @param confidence the probability asked for, in {@code [0.5, 0.999]}
     * @return this builder
     */
    public Builder deadlineConfidence(double confidence) {
      set = SetOnce.mark(set, Option.DEADLINE_CONFIDENCE);
      checkArgument(confidence >= 0.5 && confidence <= 0.999,
          "deadlineConfidence: %s (expected: in [0.5, 0.999])", confidence);
      deadlineConfidence = confidence;
      return this;
    }

    /**
     * The smallest retry-after a rejection carries. Default 10 ms.
     *
     * @param minimum the least retry-after; not negative
     * @return this builder
     */
    public Builder minRetryAfter(Duration minimum) {
      set = SetOnce.mark(set, Option.MIN_RETRY_AFTER);
      checkNotNull(minimum, "minRetryAfter: null (expected: >= 0)");
      checkArgument(!minimum.isNegative(), "minRetryAfter: %s (expected: >= 0)", minimum);
      minRetryAfterMillis = Durations.millis(minimum);
      return this;
    }

    /**
     * Fleet backpressure with tiers: a request is shed ({@code OVERLOADED}, with a retry-after) when
     * the fleet's backlog, the time it needs at its measured capacity to clear the work already
     * queued, reaches its tier's limit: {@code limit} for INTERACTIVE, {@code (1 - reserve) x limit}
     * for STANDARD ({@link #interactiveReserve}), half of that for BATCH. The lowest tier is shed
     * first, and interactive traffic never while a lower tier is admitted. Default: off.
     *
     * @param limit the interactive tier's backlog limit; positive
     * @return this builder
     */
    public Builder fleetBacklogLimit(Duration limit) {
      set = SetOnce.mark(set, Option.FLEET_BACKLOG_LIMIT);
      checkNotNull(limit, "fleetBacklogLimit: null (expected: > 0)");
      checkArgument(!limit.isNegative() && !limit.isZero(),
          "fleetBacklogLimit: %s (expected: > 0)", limit);
      fleetBacklogLimitMillis = Durations.millis(limit);
      return this;
    }

    /**
     * The share of the fleet backlog limit kept for interactive traffic: standard and batch work are
     * shed before the backlog reaches it. In [0, 0.9]; default
     * {@value #DEFAULT_INTERACTIVE_RESERVE}.
     *
     * @param share the reserved share, in {@code [0, 0.9]}
     * @return this builder
     */
    public Builder interactiveReserve(double share) {
      set = SetOnce.mark(set, Option.INTERACTIVE_RESERVE);
      checkArgument(share >= 0 && share <= 0.9,
          "interactiveReserve: %s (expected: in [0, 0.9])", share);
      interactiveReserve = share;
      return this;
    }

    /**
     * Per-tenant fairness ({@link Request#tenant()}) under pressure: from half its tier's backlog
     * limit, a request is refused while its tenant's admitted work exceeds its weighted max-min fair
     * share of what the fleet admits; a flooding tenant keeps its share and the others theirs.
     * {@code weights} gives tenants other than weight 1 (each > 0); a request without a tenant counts
     * as tenant {@code ""}. Requires {@link #fleetBacklogLimit}.
     *
     * @param weights tenant names to weights, each finite and {@code > 0}; copied, possibly empty
     *     (every tenant weighs 1)
     * @return this builder
     */
    public Builder tenantFairness(Map<String, Double> weights) {
      set = SetOnce.mark(set, Option.TENANT_FAIRNESS);
      checkNotNull(weights, "tenantFairness: null (expected: a map of tenant weights, possibly"
          + " empty)");
      weights.forEach((tenant, w) -> checkArgument(tenant != null && w != null && w > 0
              && !w.isInfinite(), "tenantFairness: %s=%s (expected: a tenant and a weight > 0)",
          tenant, w));
      tenantWeights = Map.copyOf(weights);
      return this;
    }

    /**
     * @return the controller, thread-safe
     * @throws IllegalStateException if tenant fairness is asked for without a fleet backlog limit
     */
    public AdmissionController build() {
      checkState(tenantWeights == null || !Double.isNaN(fleetBacklogLimitMillis),
          "tenantFairness: set without fleetBacklogLimit (expected: a backlog limit, which says"
              + " when the fleet is under pressure)");
      FleetBackpressure backpressure = Double.isNaN(fleetBacklogLimitMillis) ? null
          : new FleetBackpressure(fleetBacklogLimitMillis, interactiveReserve);
      TenantFairness fairness = tenantWeights == null ? null : new TenantFairness(tenantWeights);
      return new DeadlineAdmission(deadline, new EnumMap<>(queueLimitMillis), minRetryAfterMillis,
          NormalQuantile.of(deadlineConfidence), backpressure, fairness);
    }
  }
}
