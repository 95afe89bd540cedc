package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.Map;
import java.util.TreeMap;

/**
 * Wraps a policy and keeps, for the last decision, an immutable copy of every candidate's view and the
 * router's estimate for it (views handed to a policy are only valid during the call).
 * Single-threaded tests only.
 */
final class RecordingPolicy implements RoutingPolicy {
  private final RoutingPolicy delegate;
  final Map<String, CandidateView> views = new TreeMap<>();
  final Map<String, CostBreakdown> estimates = new TreeMap<>();

  RecordingPolicy(RoutingPolicy delegate) {
    this.delegate = delegate;
  }

  @Override
  public String name() {
    return "recording " + delegate.name();
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    views.clear();
    estimates.clear();
    for (CandidateView c : context.candidates()) {
      views.put(c.replicaId(), copy(c));
      estimates.put(c.replicaId(), context.estimate(c));
    }
    return delegate.route(context);
  }

  static CandidateView copy(CandidateView c) {
    CandidateView.Builder b = CandidateView.newBuilder()
        .replicaId(c.replicaId()).epoch(c.epoch()).role(c.role()).snapshot(c.snapshot())
        .snapshotAgeMillis(c.snapshotAgeMillis()).telemetryStale(c.telemetryStale())
        .inFlight(c.inFlightRequests(), c.inFlightTokens())
        .dispatchedSinceSnapshot(c.dispatchedSinceSnapshot())
        .estimatedQueueMillis(c.estimatedQueueMillis())
        .calibratedQueueMillis(c.calibratedQueueMillis())
        .queueUncertaintyMillis(c.queueUncertaintyMillis())
        .estimatedOutstandingTokens(c.estimatedOutstandingTokens())
        .matched(c.matchedBlocks(), c.matchedTokens())
        .prefill(c.prefillOverheadMillis(), c.prefillMillisPerToken())
        .adapterLoadMillis(c.adapterLoadMillis()).kvTransferMillis(c.kvTransferMillis())
        .unseenArrivalsPerSecond(c.unseenArrivalsPerSecond())
        .meanRequestCostMillis(c.meanRequestCostMillis())
        .cacheHitReliability(c.cacheHitReliability());
    c.kvUtilization().ifPresent(b::kvUtilization);
    c.freeKvTokens().ifPresent(b::freeKvTokens);
    c.recentTtftMillis().ifPresent(b::recentTtftMillis);
    return b.build();
  }
}
