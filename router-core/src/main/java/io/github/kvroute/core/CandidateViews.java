package io.github.kvroute.core;

import com.google.common.math.LongMath;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import java.util.OptionalDouble;

/**
 * Stages 2 and 4 of {@link DecisionPipeline}: which replicas are candidates for a request, and each
 * candidate's view (its report and its age, this router's sends since it, the estimates) filled in
 * place on the calling thread's {@link DecisionContext}.
 *
 * <p>Thread-safety: thread-safe; it holds only the router's shared parts, and each call works on its
 * caller's own {@link DecisionContext}.
 */
final class CandidateViews {
  private final Fleet fleet;
  private final PrefixIndex index;
  private final CostModel costModel;
  private final long defaultCapacityBlocks;

  CandidateViews(RouterSettings settings, Fleet fleet, PrefixIndex index) {
    this.fleet = fleet;
    this.index = index;
    this.costModel = settings.costModel();
    this.defaultCapacityBlocks = settings.defaultCapacityBlocks();
  }

  /**
   * Takes out of the candidate lists every view whose standard estimate (computed with its fill) is
   * {@code +Infinity} (a term vetoed it), so that no policy can choose it.
   */
  static void vetoInfinite(DecisionContext s) {
    keepFinite(s.mixed);
    keepFinite(s.prefill);
    keepFinite(s.decode);
  }

  private static void keepFinite(DecisionContext.ViewList list) {
    int kept = 0;
    for (int i = 0; i < list.size; i++) {
      MutableView v = list.items[i];
      if (v.standardMillis != Double.POSITIVE_INFINITY) {
        if (kept != i) {
          list.items[kept] = v;
        }
        kept++;
      }
    }
    list.size = kept;
  }

  boolean collect(DecisionContext s, ReplicaEntry[] members, Request request, long now, int words) {
    boolean any = false;
    // a request naming no version and no adapter is eligible wherever the view that would take the
    // replica found the same model string eligible on the same report (MutableView.eligibleModel)
    String plainModel = request.modelVersion().isEmpty() && request.adapter().isEmpty()
        ? request.model() : null;
    for (ReplicaEntry entry : members) {
      ReplicaSnapshot snap = entry.snapshot;
      MutableView next = s.views[s.viewCount];
      boolean known = plainModel != null && next.eligibleModel == plainModel
          && next.entry == entry && next.snapshot == snap && !entry.removed;
      if (!known && Eligibility.of(entry, snap, request) != Eligibility.ELIGIBLE) {
        continue;
      }
      ReplicaBreaker.Permit permit = s.dryRun ? entry.breaker.peek(now, entry.readyObservedAtNanos)
          : entry.breaker.acquire(now, entry.readyObservedAtNanos);
      if (permit == ReplicaBreaker.Permit.DENIED) {
        continue;
      }
      MutableView v = s.views[s.viewCount++];
      v.probe = permit == ReplicaBreaker.Permit.PROBE && !s.dryRun;
      v.avoided = false;
      // references only when they change: see MutableView's notes
      if (v.entry != entry) {
        v.entry = entry;
      }
      if (v.snapshot != snap) {
        v.report(snap);
      }
      if (v.eligibleModel != plainModel) {
        v.eligibleModel = plainModel;
      }
      v.standardMillis = Double.NaN;
      v.epoch = v.reportEpoch;
      int slot = entry.slot;
      if ((slot >>> 6) < words) {
        s.mask[slot >>> 6] |= 1L << slot;
        any = true;
      }
      switch (v.reportRole) {
        case MIXED -> s.mixed.add(v);
        case PREFILL -> s.prefill.add(v);
        case DECODE -> s.decode.add(v);
      }
    }
    return any;
  }

  void fill(MutableView v, Request request, long now, boolean matched, DecisionContext s,
      int words, double meanMillis) {
    ReplicaEntry entry = v.entry;
    ReplicaSnapshot snap = v.snapshot;
    LedgerReading r = v.reading;
    entry.ledger.read(now, r, s.decay);
    v.snapshotAgeMillis = Math.max(0, now - entry.observedAtNanos) / 1e6;
    v.telemetryStale = v.snapshotAgeMillis > costModel.staleAfterMillis();
    v.inFlightRequests = r.inFlightRequests;
    v.inFlightTokens = r.inFlightTokens;
    v.inFlightPromptTokens = r.inFlightPromptTokens;
    v.dispatchedSinceSnapshot = r.sinceCount;
    v.estimatedQueueMillis = r.queueMillis;
    v.queueFactor = entry.calibration.queueFactor();
    v.queueFactorSpread = entry.calibration.queueFactorSpread();
    // reported counts are host input: sums saturate rather than wrap to negative
    v.estimatedOutstandingTokens = v.reportsWork
        ? LongMath.saturatedAdd(v.reportedWorkTokens, r.sinceOutstandingTokens)
        : r.inFlightTokens;
    int slot = entry.slot;
    v.matchedBlocks = matched && (slot >>> 6) < words ? s.matchedBySlot[slot] : 0;
    v.matchedTokens = request.prompt().tokensInBlocks(v.matchedBlocks);
    v.cachedBlocks = index.slotEntriesNow(slot);
    long mirrored = entry.mirroredCapacityBlocks;
    v.cacheCapacityBlocks = mirrored > 0 ? mirrored : defaultCapacityBlocks;
    v.prefillMillisPerToken = fleet.msPerToken(entry, v.reportedMillisPerToken);
    v.prefillOverheadMillis = costModel.prefillOverheadMillis();
    v.adapterLoadMillis = request.adapter().isPresent()
        && !snap.residentAdapters().contains(request.adapter().get())
        ? costModel.adapterLoadMillis() : 0;
    v.kvTransferMillis = v.decodeRole ? costModel.kvTransferMillis(request.promptTokens()) : 0;
    if (v.reportsKv) {
      // a decode replica's reservations: disaggregated attempts whose KV is still on its way
      long used = LongMath.saturatedAdd(v.reportedKvTokens,
          r.sinceOutstandingTokens + r.decodeReservedTokens);
      v.freeKvTokens = Math.max(0, v.kvCapacityTokens - used);
      v.kvUtilization = Math.min(1.0, (double) used / v.kvCapacityTokens);
      long open = v.kvCapacityTokens
          - LongMath.saturatedAdd(v.reportedKvTokens, r.sinceKvTokens + r.decodeReservedTokens);
      // at a router alone, a hit on a prefix none of its requests holds there takes its KV from
      // the free blocks like a miss (PinnedPrefixes)
      int shared = v.matchedTokens > 0 && r.peers <= 0
          && !entry.ledger.holds(s.prefixKey) ? 0 : v.matchedTokens;
      v.estimatedQueueMillis = Math.max(v.estimatedQueueMillis,
          KvWait.millis(request, shared, v.freeKvTokens, open, snap, r));
    } else {
      v.freeKvTokens = -1;
      v.kvUtilization = -1;
    }
    // a replica held up by its KV admits as fast as running requests finish
    v.estimatedQueueMillis = Math.max(v.estimatedQueueMillis, AdmissionRate.kvBoundWaitMillis(
        snap, r.sinceCount, v.snapshotAgeMillis, entry.admissionPerSecond));
    // the replay already counts the peers' traffic that moves with this router's own; the risk is in
    // the rest
    s.peers = Math.max(s.peers, r.peers);
    double withPeers = (1 + r.peers) * r.ownRatePerSecond;
    v.unseenArrivalsPerSecond =
        Math.max(0, fleet.unseenRatePerSecond(entry, r.ownRatePerSecond) + r.ownRatePerSecond
            - withPeers);
    v.arrivalsPerSecond = withPeers + v.unseenArrivalsPerSecond;
    v.meanRequestCostMillis = meanMillis;
    v.cacheHitReliability = entry.calibration.reliability();
    v.cacheFromEvents = entry.exact;
    OptionalDouble ttft = entry.recentTtftMillis;
    if (v.recentTtftMillis != ttft) {
      v.recentTtftMillis = ttft;
      v.hasRecentTtft = ttft.isPresent();
      v.recentTtftValue = ttft.orElse(Double.NaN);
    }
  }
}
