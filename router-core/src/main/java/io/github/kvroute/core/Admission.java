package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.Priority;
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
 * </ul>
 *
 * <p>Thread-safety: the controllers built here are immutable and thread-safe.
 */
public final class Admission {
  /** See {@link Builder#deadlineConfidence}. */
  public static final double DEFAULT_DEADLINE_CONFIDENCE = 0.9;

  private Admission() {}

  /** Deadline veto on; batch work shed when the best queue exceeds 1 s. */
  public static AdmissionController standard() {
    return newBuilder().build();
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  /** Builds the standard controller. Not thread-safe; each option may be set once. */
  public static final class Builder {
    private boolean deadline = true;
    private final Map<Priority, Double> queueLimitMillis = new EnumMap<>(Priority.class);
    private double minRetryAfterMillis = 10;
    private double deadlineConfidence = DEFAULT_DEADLINE_CONFIDENCE;
    /** This builder's options, each set once ({@link SetOnce}). */
    private enum Option {
      DEADLINE, DEADLINE_CONFIDENCE, MIN_RETRY_AFTER
    }

    private long set;
    /** A bit per {@link Priority} whose queue limit was set. */
    private long queueLimitsSet;

    private Builder() {
      queueLimitMillis.put(Priority.BATCH, 1_000.0);
    }


    /** Whether to reject requests whose predicted TTFT exceeds their remaining budget. Default on. */
    public Builder deadline(boolean enabled) {
      set = SetOnce.mark(set, Option.DEADLINE);
      deadline = enabled;
      return this;
    }

    /**
     * Rejects requests of {@code priority} as overloaded when the best candidate's queue exceeds
     * {@code limit}; {@code null} removes the limit. Default: 1 s for BATCH, none otherwise.
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
     */
    public Builder deadlineConfidence(double confidence) {
      set = SetOnce.mark(set, Option.DEADLINE_CONFIDENCE);
      checkArgument(confidence >= 0.5 && confidence <= 0.999,
          "deadlineConfidence: %s (expected: in [0.5, 0.999])", confidence);
      deadlineConfidence = confidence;
      return this;
    }

    /** The smallest retry-after a rejection carries. Default 10 ms. */
    public Builder minRetryAfter(Duration minimum) {
      set = SetOnce.mark(set, Option.MIN_RETRY_AFTER);
      checkNotNull(minimum, "minRetryAfter: null (expected: >= 0)");
      checkArgument(!minimum.isNegative(), "minRetryAfter: %s (expected: >= 0)", minimum);
      minRetryAfterMillis = Durations.millis(minimum);
      return this;
    }

    public AdmissionController build() {
      return new DeadlineAdmission(deadline, new EnumMap<>(queueLimitMillis), minRetryAfterMillis,
          NormalQuantile.of(deadlineConfidence));
    }
  }
}
