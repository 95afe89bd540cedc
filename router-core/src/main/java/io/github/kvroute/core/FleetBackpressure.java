package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Priority;
import io.github.kvroute.api.RoutingContext;
import java.util.List;

/**
 * Fleet-level backpressure: how long the whole fleet needs to drain the work queued on it, against
 * the backlog it may carry, with a share of that backlog kept for interactive traffic.
 *
 * <h2>Design notes</h2>
 * The fleet's backlog is the mean over its candidates (whole-request replicas and the prefill side of
 * a disaggregated fleet, where queueing happens) of their queue waits as outcomes calibrated them. Each
 * queue is in that replica's own measured milliseconds, so the mean is the time the fleet, working
 * at its measured capacity, needs to clear what is already queued: one number for the whole fleet,
 * where a per-replica limit would only ask whether some replica is free.
 *
 * <p>The tiers' limits nest: {@link Priority#INTERACTIVE} may fill the whole limit {@code L},
 * {@link Priority#STANDARD} only {@code (1 - reserve) x L} (the reserve is capacity kept for
 * interactive traffic), {@link Priority#BATCH} half of that. Shedding is therefore lowest tier first,
 * and an interactive request is never shed while a lower tier is admitted. With {@code L = 2 s} and
 * the default reserve 0.2: batch is shed from 800 ms of backlog, standard from 1.6 s, interactive from
 * 2 s. A shed request's retry-after is the time the fleet needs to drain to its tier's limit.
 *
 * <p>Thread-safety: immutable.
 */
final class FleetBackpressure {
  private final double limitMillis;
  private final double interactiveReserve;

  FleetBackpressure(double limitMillis, double interactiveReserve) {
    this.limitMillis = limitMillis;
    this.interactiveReserve = interactiveReserve;
  }

  /** The backlog {@code priority} may find and still be admitted. */
  double limitMillis(Priority priority) {
    return switch (priority) {
      case INTERACTIVE -> limitMillis;
      case STANDARD -> (1 - interactiveReserve) * limitMillis;
      case BATCH -> (1 - interactiveReserve) * limitMillis / 2;
    };
  }

  /** The fleet's backlog: the mean calibrated queue wait over the queueing candidates; 0 with none. */
  static double backlogMillis(RoutingContext context) {
    double sum = 0;
    int n = 0;
    for (List<CandidateView> list : List.of(context.candidates(), context.prefillCandidates())) {
      for (CandidateView c : list) {
        sum += Math.max(0, c.calibratedQueueMillis());
        n++;
      }
    }
    return n == 0 ? 0 : sum / n;
  }
}
