package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;

/**
 * The {@link RoutingContext} behaviour every context of this library shares: the request, the injected
 * time and randomness, and the {@link StandardEstimate}. Subclasses supply the candidate lists: the
 * router's per-thread {@link DecisionContext} over pooled views, or {@link RoutingContexts}' fixed lists.
 *
 * <p>Thread-safety: as the subclass's.
 */
abstract class StandardContext implements RoutingContext {
  Request request;
  long nowNanos;
  RandomSource random;
  StandardEstimate estimate;

  @Override
  public final Request request() {
    return request;
  }

  @Override
  public final RandomSource random() {
    return random;
  }

  @Override
  public final long nowNanos() {
    return nowNanos;
  }

  @Override
  public final CostBreakdown estimate(CandidateView candidate) {
    return estimate.breakdown(request, candidate);
  }

  @Override
  public final double estimateMillis(CandidateView candidate) {
    return estimate.totalMillis(request, candidate);
  }
}
