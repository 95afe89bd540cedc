package io.github.kvroute.core;

import com.google.common.math.LongMath;
import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Priority;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.OptionalLong;

/** See {@link Admission}. Immutable and thread-safe. */
final class DeadlineAdmission implements AdmissionController {
  private final boolean deadline;
  private final EnumMap<Priority, Double> queueLimitMillis;
  private final double minRetryAfterMillis;
  /** Standard deviations of the queue's spread added to its calibrated mean. */
  private final double sigmas;

  DeadlineAdmission(boolean deadline, EnumMap<Priority, Double> queueLimitMillis,
      double minRetryAfterMillis, double sigmas) {
    this.deadline = deadline;
    this.queueLimitMillis = queueLimitMillis;
    this.minRetryAfterMillis = minRetryAfterMillis;
    this.sigmas = sigmas;
  }

  /** The wait {@code c}'s queue stays under with the configured confidence. */
  private double confidentQueueMillis(CandidateView c) {
    return c.calibratedQueueMillis() + sigmas * c.queueUncertaintyMillis();
  }

  @Override
  public RoutingDecision admit(RoutingContext context, RoutingDecision proposed) {
    Request request = context.request();
    Double limit = queueLimitMillis.get(request.priority());
    if (limit != null) {
      double best = bestQueueMillis(context);
      if (best > limit) {
        return RoutingDecision.rejected(RejectReason.OVERLOADED,
            String.format("best queue %.0f ms exceeds the %.0f ms limit for %s", best, limit,
                request.priority()),
            retryAfter(best - limit));
      }
    }
    if (!deadline) {
      return proposed;
    }
    OptionalLong remaining = remainingBudgetMillis(request, context.nowNanos());
    if (remaining.isEmpty()) {
      return proposed;
    }
    double predicted = proposed.cost().totalMillis() + queueCorrection(context, proposed);
    if (predicted <= remaining.getAsLong()) {
      return proposed;
    }
    double wait = waitUntilSomeCandidateFits(context, remaining.getAsLong());
    return RoutingDecision.rejected(RejectReason.DEADLINE,
        String.format("predicted %.0f ms on %s exceeds the remaining budget of %d ms",
            predicted, proposed.prefillReplicaId().orElse(proposed.replicaId()),
            remaining.getAsLong()),
        Double.isNaN(wait) ? null : retryAfter(wait));
  }

  /**
   * How much longer than the decision's own estimate its TTFT may be, by what outcomes showed about
   * the queue of the replica that runs the prefill: the confident queue minus the estimated one.
   */
  private double queueCorrection(RoutingContext context, RoutingDecision decision) {
    String id = decision.prefillReplicaId().orElse(decision.replicaId());
    long epoch = decision.prefillReplicaId().isPresent() ? decision.prefillEpoch() : decision.epoch();
    for (List<CandidateView> list : List.of(context.candidates(), context.prefillCandidates())) {
      for (CandidateView c : list) {
        if (c.epoch() == epoch && c.replicaId().equals(id)) {
          return confidentQueueMillis(c) - c.estimatedQueueMillis();
        }
      }
    }
    return 0;
  }

  /** Budget minus upstream time minus time spent since the request reached the router. */
  static OptionalLong remainingBudgetMillis(Request request, long nowNanos) {
    OptionalLong remaining = request.remainingBudgetMillis();
    if (remaining.isEmpty() || request.arrivalNanos().isEmpty()) {
      return remaining;
    }
    long sinceArrival = Math.max(0, nowNanos - request.arrivalNanos().getAsLong()) / 1_000_000;
    return OptionalLong.of(LongMath.saturatedSubtract(remaining.getAsLong(), sinceArrival));
  }

  /**
   * The least wait after which a candidate's predicted cost (with its confident queue) fits
   * {@code budget}, assuming the estimated queue drains at one millisecond per millisecond (so the
   * confident one proportionally faster) and nothing else changes; {@code NaN} when none could fit
   * even with an empty queue.
   */
  private double waitUntilSomeCandidateFits(RoutingContext context, long budget) {
    double best = Double.NaN;
    // whole-request replicas, and the prefill side of a disaggregated fleet (where TTFT is decided)
    for (List<CandidateView> list : List.of(context.candidates(), context.prefillCandidates())) {
      for (CandidateView c : list) {
        double estimated = c.estimatedQueueMillis();
        double calibrated = confidentQueueMillis(c);
        double over = context.estimateMillis(c) + calibrated - estimated - budget;
        double wait = estimated > 0 && calibrated > 0 ? over * estimated / calibrated : over;
        if (over <= calibrated && (Double.isNaN(best) || wait < best)) {
          best = Math.max(0, wait);
        }
      }
    }
    return best;
  }

  private static double bestQueueMillis(RoutingContext context) {
    double best = Double.POSITIVE_INFINITY;
    for (List<CandidateView> list : List.of(context.candidates(), context.prefillCandidates())) {
      for (CandidateView c : list) {
        best = Math.min(best, c.calibratedQueueMillis());
      }
    }
    return best;
  }

  private Duration retryAfter(double millis) {
    double ms = Math.max(minRetryAfterMillis, millis);
    return Duration.ofMillis((long) Math.ceil(ms));
  }
}
