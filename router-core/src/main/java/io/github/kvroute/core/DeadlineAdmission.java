package io.github.kvroute.core;

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

/**
 * See {@link Admission}. Thread-safe: immutable apart from {@link TenantFairness}, which guards its
 * own state.
 */
final class DeadlineAdmission implements AdmissionController {
  private final boolean deadline;
  private final EnumMap<Priority, Double> queueLimitMillis;
  private final double minRetryAfterMillis;
  /** Standard deviations of the queue's spread added to its calibrated mean. */
  private final double sigmas;
  /** Fleet backpressure with tiers; null when off. */
  private final FleetBackpressure backpressure;
  /** Per-tenant fair shares under pressure; null when off. */
  private final TenantFairness fairness;

  DeadlineAdmission(boolean deadline, EnumMap<Priority, Double> queueLimitMillis,
      double minRetryAfterMillis, double sigmas, FleetBackpressure backpressure,
      TenantFairness fairness) {
    this.deadline = deadline;
    this.queueLimitMillis = queueLimitMillis;
    this.minRetryAfterMillis = minRetryAfterMillis;
    this.sigmas = sigmas;
    this.backpressure = backpressure;
    this.fairness = fairness;
  }

  /** The wait {@code c}'s queue stays under with the configured confidence. */
  private double confidentQueueMillis(CandidateView c) {
    return c.calibratedQueueMillis() + sigmas * c.queueUncertaintyMillis();
  }

  @Override
  public RoutingDecision admit(RoutingContext context, RoutingDecision proposed) {
    Request request = context.request();
    if (proposed.prefillReplicaId().isPresent() && !pairReady(context, proposed)) {
      return PairSelection.noneReady(context);
    }
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
    RoutingDecision shed = shedUnderPressure(context, proposed);
    if (shed != null) {
      return shed;
    }
    RoutingDecision vetoed = deadline ? deadlineVeto(context, proposed) : null;
    if (vetoed != null) {
      return vetoed;
    }
    if (fairness != null) {
      fairness.admitted(tenant(request), workMillis(proposed), context.nowNanos());
    }
    return proposed;
  }

  /**
   * Fleet backpressure for the request's tier, then its tenant's fair share once the backlog is past
   * half its tier's limit; null when neither sheds it.
   */
  private RoutingDecision shedUnderPressure(RoutingContext context, RoutingDecision proposed) {
    if (backpressure == null) {
      return null;
    }
    Request request = context.request();
    double backlog = FleetBackpressure.backlogMillis(context);
    double limit = backpressure.limitMillis(request.priority());
    if (backlog >= limit) {
      return RoutingDecision.rejected(RejectReason.OVERLOADED,
          String.format("fleet backlog %.0f ms reached the %.0f ms limit for %s", backlog, limit,
              request.priority()),
          retryAfter(backlog - limit));
    }
    if (fairness == null) {
      return null;
    }
    // demand counts whenever fairness could act, so a tenant's share is of what it asks
    TenantFairness.Refusal refusal =
        fairness.offer(tenant(request), workMillis(proposed), context.nowNanos());
    if (refusal == null || backlog < limit / 2) {
      return null;
    }
    return RoutingDecision.rejected(RejectReason.OVERLOADED,
        String.format("tenant '%s' above its fair share under pressure (%.0f%% of admitted work,"
            + " fair share %.0f%%)", tenant(request), 100 * refusal.share(),
            100 * refusal.fairShare()),
        retryAfter(refusal.retryAfterMillis()));
  }

  private static String tenant(Request request) {
    return request.tenant().orElse("");
  }

  /** The work a routed request adds to the fleet: its predicted prefill, at least 1 ms. */
  private static double workMillis(RoutingDecision d) {
    return Math.max(1, d.costTermMillis(CostTerm.PREFILL.termName(), 1));
  }

  /** The deadline veto: null when the request's predicted TTFT fits what is left of its budget. */
  private RoutingDecision deadlineVeto(RoutingContext context, RoutingDecision proposed) {
    Request request = context.request();
    OptionalLong remaining = request.remainingBudgetMillis(context.nowNanos());
    if (remaining.isEmpty()) {
      return null;
    }
    double predicted = proposed.costMillis() + queueCorrection(context, proposed);
    if (predicted <= remaining.getAsLong()) {
      return null;
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

  /**
   * Whether the decision's decode replica can hold the request's KV by the time its prefill ends
   * (never admit into prefill with no decode capacity ready; see {@link PairSelection}).
   */
  private static boolean pairReady(RoutingContext context, RoutingDecision d) {
    CandidateView prefill = find(context, d.prefillReplicaId().get(), d.prefillEpoch());
    CandidateView decode = find(context, d.replicaId(), d.epoch());
    return prefill == null || decode == null
        || PairSelection.ready(context, decode, context.estimateMillis(prefill));
  }

  private static CandidateView find(RoutingContext context, String id, long epoch) {
    for (List<CandidateView> list : List.of(context.candidates(), context.prefillCandidates(),
        context.decodeCandidates())) {
      for (CandidateView c : list) {
        if (c.epoch() == epoch && c.replicaId().equals(id)) {
          return c;
        }
      }
    }
    return null;
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
