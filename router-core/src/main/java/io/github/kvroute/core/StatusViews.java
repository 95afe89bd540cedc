package io.github.kvroute.core;

import io.github.kvroute.api.ReplicaSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@link Router}'s admin calls report: the router's totals ({@link Router#stats}) and every
 * known replica's status ({@link Router#replicas}). Built on demand, never on the request path.
 *
 * <p>Thread-safety: stateless; the parts it reads are thread-safe.
 */
final class StatusViews {
  private StatusViews() {}

  /** The totals now, after the attempt table's pending expiry (open and expired are current). */
  static RouterStats stats(RouterCounters counters, LeaseTable leases, PrefixIndex index,
      PluginGuard guard) {
    leases.cleanUp();
    return new RouterStats(counters.routed.sum(), counters.rejectedByReason(),
        counters.outcomesByResult(), leases.openCount(), counters.expired.sum(),
        counters.orphaned.sum(), index.entryCount(), index.blockCount(), index.estimatedBytes(),
        index.budgetBytes(), index.droppedHints(), index.compactionCount(), guard.failures(),
        counters.droppedKvEvents.sum(), counters.skewedReports.sum(), counters.kvEventGaps.sum(),
        counters.outOfOrderKvEvents.sum());
  }

  /** Every member of {@code fleet} as of {@code now}, in the fleet's order (by id). */
  static List<ReplicaStatus> replicas(Fleet fleet, PrefixIndex index, long now) {
    List<ReplicaStatus> out = new ArrayList<>();
    for (ReplicaEntry e : fleet.members()) {
      ReplicaSnapshot s = e.snapshot;
      LedgerReading r = new LedgerReading();
      e.ledger.read(now, r);
      long observed = e.observedAtNanos;
      out.add(new ReplicaStatus(e.id, e.epoch,
          s == null ? Optional.empty() : Optional.of(s.state()),
          s == null ? Optional.empty() : Optional.of(s.role()),
          e.breaker.state(),
          observed == Long.MIN_VALUE ? -1 : Math.max(0, now - observed) / 1e6,
          r.inFlightRequests, r.inFlightTokens, r.queueMillis, e.exact && !e.degraded, e.degraded,
          index.slotEntries(e.slot), e.calibration.reliability(), e.calibration.queueFactor(),
          fleet.msPerToken(e, s), e.calibration.learntMsPerToken()));
    }
    return out;
  }
}
