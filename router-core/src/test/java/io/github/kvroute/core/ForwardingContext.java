package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import java.util.List;

/**
 * A test context that forwards the abstract methods of {@link RoutingContext} to {@link #base()}
 * and keeps every default of the interface, unless an implementation overrides one on purpose.
 */
interface ForwardingContext extends RoutingContext {
  RoutingContext base();

  @Override
  default Request request() {
    return base().request();
  }

  @Override
  default List<CandidateView> candidates() {
    return base().candidates();
  }

  @Override
  default List<CandidateView> prefillCandidates() {
    return base().prefillCandidates();
  }

  @Override
  default List<CandidateView> decodeCandidates() {
    return base().decodeCandidates();
  }

  @Override
  default RandomSource random() {
    return base().random();
  }

  @Override
  default long nowNanos() {
    return base().nowNanos();
  }

  @Override
  default CostBreakdown estimate(CandidateView candidate) {
    return base().estimate(candidate);
  }
}
