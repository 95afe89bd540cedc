package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.base.Strings;
import com.google.common.math.LongMath;
import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.DecisionExplanation;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.Ticker;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.Consumer;

/**
 * The decision pipeline of one router (each stage is explained in docs/decision-pipeline.md):
 *
 * <ol>
 *   <li>validate the request (a bad one throws before any state is touched);
 *   <li>candidates: READY, current epoch, breaker permitting, right model, version and adapter,
 *       sorted by role (a later attempt avoids the replicas of the request's attempt in flight);
 *   <li>one walk of the prefix index gives every candidate's leading match;
 *   <li>views: report and its age, this router's sends since it, estimates;
 *   <li>the policy chooses (contained: a throwing or invalid policy falls back to least cost);
 *   <li>admission may veto, with a reason and a retry-after;
 *   <li>record: lease, books, breaker probe, optimistic index insert.
 * </ol>
 *
 * <p>{@link #explain} runs stages 1 to 6 as a dry run; {@code route} builds an explanation only
 * when its caller passes somewhere to put it.
 *
 * <p>Thread-safety: thread-safe; each calling thread uses its own {@link DecisionContext}.
 */
final class DecisionPipeline {
  private static final ThreadLocal<DecisionContext> SCRATCH = ThreadLocal.withInitial(DecisionContext::new);

  private final Fleet fleet;
  private final PrefixIndex index;
  private final LeaseTable leases;
  private final MeanWork meanWork;
  private final RouterCounters counters;
  private final RoutingPolicy policy;
  private final AdmissionController admission;
  private final StandardEstimate estimate;
  private final PluginGuard guard;
  private final CostModel costModel;
  private final Topology topology;
  private final TransferBacklog backlog = new TransferBacklog();
  private final Ticker ticker;
  private final RandomSource random;
  private final int blockSizeTokens;
  private final long defaultCapacityBlocks;

  /**
   * @param leases where routed attempts are recorded until their outcome
   * @param meanWork updated with every routed request's predicted prefill work
   */
  DecisionPipeline(RouterSettings settings, HostPlugins plugins, Fleet fleet, PrefixIndex index,
      LeaseTable leases, MeanWork meanWork, RouterCounters counters) {
    this.fleet = fleet;
    this.index = index;
    this.leases = leases;
    this.meanWork = meanWork;
    this.counters = counters;
    this.policy = plugins.policy();
    this.admission = plugins.admission();
    this.estimate = plugins.estimate();
    this.guard = plugins.guard();
    this.costModel = settings.costModel();
    this.topology = settings.topology();
    this.ticker = settings.ticker();
    this.random = settings.random();
    this.blockSizeTokens = settings.blockSizeTokens();
    this.defaultCapacityBlocks = settings.defaultCapacityBlocks();
  }

  RoutingDecision route(Request request) {
    return route(request, null);
  }

  /**
   * {@link #route}; when {@code explained} is given, it receives the explanation of the decision
   * before anything is recorded (only then is one built).
   */
  RoutingDecision route(Request request, Consumer<DecisionExplanation> explained) {
    checkPrompt(request);
    // the attempt by id and number, not a RequestRef: one object fewer per decision
    String id = request.id();
    int attempt = request.attempt();
    // one reading of the clock for the whole decision, the attempt table's checks and records
    // included (the system clock costs some 25 ns a reading)
    long now = ticker.read();
    checkArgument(leases.get(id, attempt, now) == null,
        "request: %s#%s (expected: an attempt not already in flight; retry with nextAttempt())", id,
        attempt);
    Lease newer = leases.newerOpen(id, attempt, now);
    if (newer != null) {
      throw new IllegalArgumentException(Strings.lenientFormat(
          "request: %s#%s (expected: a later attempt than %s, which is in flight)", id, attempt,
          newer.ref()));
    }

    int maskWords = index.words();
    ReplicaEntry[] members = fleet.members();
    DecisionContext s = SCRATCH.get();
    s.begin(request, now, random, estimate, members.length, maskWords, maskWords << 6);
    s.pairs(costModel, topology);
    s.backlog = backlog;
    try {
      prepare(s, members, request, now, maskWords);
      RoutingDecision decision = decide(s);
      if (explained != null) {
        explained.accept(Explanations.of(s, decision, members));
      }
      Lease lease = decision.isRouted() ? record(s, decision, now) : null;
      try {
        guard.listener().onDecision(request, decision);
      } catch (Throwable fatal) {
        // only a fatal error gets here (the listener is contained otherwise): the host will not see
        // this decision, so it must not stay recorded
        if (lease != null) {
          unrecord(lease);
        }
        throw fatal;
      }
      if (decision.isRouted()) {
        counters.routed.increment();
      } else {
        counters.rejected(decision.reason());
      }
      return decision;
    } finally {
      s.end();
    }
  }

  /**
   * Stages 1 to 6 of {@link #route}, recording nothing: no attempt, books, breaker probe, index
   * insert, listener event or count, and the policy draws on a random source of its own (seeded
   * from the request id), never the router's. Runs on a context of its own, so that a listener may
   * call it from inside a route.
   */
  DecisionExplanation explain(Request request) {
    checkPrompt(request);
    long now = ticker.read();
    int maskWords = index.words();
    ReplicaEntry[] members = fleet.members();
    DecisionContext s = new DecisionContext();
    s.dryRun = true;
    s.begin(request, now, RandomSource.seeded(request.id().hashCode()), estimate, members.length,
        maskWords, maskWords << 6);
    try {
      prepare(s, members, request, now, maskWords);
      return Explanations.of(s, decide(s), members);
    } finally {
      s.end();
    }
  }

  /** Stage 1's prompt check: a prompt hashed with another block size can match nothing here. */
  private void checkPrompt(Request request) {
    checkNotNull(request, "request: null (expected: non-null)");
    PromptKey prompt = request.prompt();
    checkArgument(prompt.blockCount() == 0 || prompt.blockSizeTokens() == blockSizeTokens,
        "request.prompt.blockSizeTokens: %s (expected: the router's block size %s)",
        prompt.blockSizeTokens(), blockSizeTokens);
  }

  /** Stages 2 to 4: candidates, one walk of the index, views; then the vetoed views leave. */
  private void prepare(DecisionContext s, ReplicaEntry[] members, Request request, long now,
      int maskWords) {
    PromptKey prompt = request.prompt();
    boolean anyMatchable = collect(s, members, request, now, maskWords);
    if (anyMatchable && prompt.blockCount() > 0) {
      index.match(prompt, s.mask, maskWords, s.alive, s.matchedBySlot);
    }
    boolean matched = anyMatchable && prompt.blockCount() > 0;
    // one mean for the whole decision (a concurrent route may move it; the candidates share one)
    double meanMillis = meanWork.millis();
    for (int i = 0; i < s.viewCount; i++) {
      MutableView v = s.views[i];
      fill(v, request, now, matched, s, maskWords, meanMillis);
      // the estimate right after the view's fill, while its fields are in the cache: a term reads
      // only its request and candidate, so no view's terms depend on another's fill
      v.standardMillis = estimate.fill(request, v);
    }
    vetoInfinite(s);
    Lease earlier = request.attempt() > 1
        ? leases.olderOpen(request.id(), request.attempt()) : null;
    if (earlier != null) {
      AttemptPlacement.avoid(s, earlier);
    }
  }

  /**
   * Takes out of the candidate lists every view whose standard estimate (computed with its fill) is
   * {@code +Infinity} (a term vetoed it), so that no policy can choose it.
   */
  private static void vetoInfinite(DecisionContext s) {
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

  private boolean collect(DecisionContext s, ReplicaEntry[] members, Request request, long now, int words) {
    boolean any = false;
    for (ReplicaEntry entry : members) {
      ReplicaSnapshot snap = entry.snapshot;
      if (Eligibility.of(entry, snap, request) != Eligibility.ELIGIBLE) {
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
      v.standardMillis = Double.NaN;
      v.epoch = snap.epoch();
      int slot = entry.slot;
      if ((slot >>> 6) < words) {
        s.mask[slot >>> 6] |= 1L << slot;
        any = true;
      }
      switch (snap.role()) {
        case MIXED -> s.mixed.add(v);
        case PREFILL -> s.prefill.add(v);
        case DECODE -> s.decode.add(v);
      }
    }
    return any;
  }

  private void fill(MutableView v, Request request, long now, boolean matched, DecisionContext s,
      int words, double meanMillis) {
    ReplicaEntry entry = v.entry;
    ReplicaSnapshot snap = v.snapshot;
    DispatchLedger.Reading r = v.reading;
    entry.ledger.read(now, r);
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
    v.prefillMillisPerToken = fleet.msPerToken(entry, snap);
    v.prefillOverheadMillis = costModel.prefillOverheadMillis();
    v.adapterLoadMillis = request.adapter().isPresent()
        && !snap.residentAdapters().contains(request.adapter().get())
        ? costModel.adapterLoadMillis() : 0;
    v.kvTransferMillis = v.decodeRole ? costModel.kvTransferMillis(request.promptTokens()) : 0;
    if (v.reportsKv) {
      // a decode replica's reservations: disaggregated attempts whose KV is still on its way
      long used =
          LongMath.saturatedAdd(v.reportedKvTokens, r.sinceKvTokens + r.decodeReservedTokens);
      v.freeKvTokens = Math.max(0, v.kvCapacityTokens - used);
      v.kvUtilization = Math.min(1.0, (double) used / v.kvCapacityTokens);
      v.estimatedQueueMillis = Math.max(v.estimatedQueueMillis,
          KvWait.millis(request, v.matchedTokens, v.freeKvTokens, snap, r));
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
    }
  }

  private RoutingDecision decide(DecisionContext s) {
    RoutingDecision d;
    try {
      d = policy.route(s);
      checkNotNull(d, "policy %s returned null (expected: a decision)", policy.name());
      validate(s, d, policy);
    } catch (Throwable e) {
      guard.failed("policy " + policy.name(), "used the least-cost replica instead", e);
      d = leastCost(s);
    }
    if (!d.isRouted()) {
      return d;
    }
    d = withCost(s, d);
    RoutingDecision admitted;
    try {
      admitted = admission.admit(s, d);
      checkNotNull(admitted, "admission returned null (expected: a decision)");
      if (admitted.isRouted() && admitted != d) {
        validate(s, admitted, null);
        admitted = withCost(s, admitted);
      }
    } catch (Throwable e) {
      guard.failed("admission", "used the policy's decision as it was instead", e);
      admitted = d;
    }
    return admitted;
  }

  private RoutingDecision withCost(DecisionContext s, RoutingDecision d) {
    if (!d.cost().isEmpty()) {
      return d;
    }
    MutableView chosen = find(s.mixed, d.replicaId(), d.epoch());
    if (chosen == null) {
      chosen = find(s.decode, d.replicaId(), d.epoch());
    }
    return d.withCost(estimate.breakdown(s.request, chosen));
  }

  /**
   * A decision must name eligible candidates in their current epochs. {@code byPolicy} is the
   * policy that decided, or null for admission; its label is built only for the message of a
   * refusal, because concatenating it on every decision allocated two objects each time.
   */
  private static void validate(DecisionContext s, RoutingDecision d, RoutingPolicy byPolicy) {
    if (!d.isRouted()) {
      return;
    }
    if (d.prefillReplicaId().isPresent()) {
      String p = d.prefillReplicaId().get();
      boolean prefillOk = find(s.prefill, p, d.prefillEpoch()) != null
          || find(s.mixed, p, d.prefillEpoch()) != null;
      boolean decodeOk = find(s.decode, d.replicaId(), d.epoch()) != null
          || find(s.mixed, d.replicaId(), d.epoch()) != null;
      if (!(prefillOk && decodeOk)) {
        throw new IllegalArgumentException(Strings.lenientFormat(
            "%s routed to %s via %s (expected: an eligible prefill and decode pair)", who(byPolicy),
            d.replicaId(), p));
      }
    } else if (find(s.mixed, d.replicaId(), d.epoch()) == null) {
      throw new IllegalArgumentException(Strings.lenientFormat(
          "%s routed to %s#%s (expected: one of the eligible candidates)", who(byPolicy),
          d.replicaId(), d.epoch()));
    }
  }

  /** Who made a decision {@link #validate} refuses, as the log names it. */
  private static String who(RoutingPolicy byPolicy) {
    return byPolicy == null ? "admission" : "policy " + byPolicy.name();
  }

  /**
   * The view of replica {@code id} in {@code epoch}, or null. A decision built from a view names it
   * by that view's own id string, so a pass comparing references finds it without comparing the
   * characters of every candidate's id before it (twice per decision, over up to every candidate);
   * ids are unique, so the second pass, by equality, finds the same view when the first finds one.
   */
  private static MutableView find(DecisionContext.ViewList list, String id, long epoch) {
    for (int i = 0; i < list.size; i++) {
      MutableView v = list.items[i];
      if (v.entry.id == id && v.epoch == epoch) {
        return v;
      }
    }
    for (int i = 0; i < list.size; i++) {
      MutableView v = list.items[i];
      if (v.epoch == epoch && v.entry.id.equals(id)) {
        return v;
      }
    }
    return null;
  }

  /** The safe fallback: least standard cost among whole-request candidates. */
  private RoutingDecision leastCost(DecisionContext s) {
    if (s.mixed.size == 0) {
      return s.noCandidates();
    }
    MutableView best = null;
    double bestMillis = Double.POSITIVE_INFINITY;
    for (int i = 0; i < s.mixed.size; i++) {
      MutableView v = s.mixed.items[i];
      double c = estimate.totalMillis(s.request, v);
      if (best == null || c < bestMillis) {
        best = v;
        bestMillis = c;
      }
    }
    return RoutingDecision.routed(best, estimate.breakdown(s.request, best));
  }

  private Lease record(DecisionContext s, RoutingDecision d, long now) {
    Request request = s.request;
    MutableView chosen = find(s.mixed, d.replicaId(), d.epoch());
    MutableView prefillView = null;
    if (d.prefillReplicaId().isPresent()) {
      chosen = chosen != null ? chosen : find(s.decode, d.replicaId(), d.epoch());
      prefillView = find(s.prefill, d.prefillReplicaId().get(), d.prefillEpoch());
      if (prefillView == null) {
        prefillView = find(s.mixed, d.prefillReplicaId().get(), d.prefillEpoch());
      }
    }
    MutableView computeView = prefillView != null ? prefillView : chosen;
    double work = PrefillTerm.prefillMillis(request.promptTokens(), computeView);
    Lease lease = new Lease(request.id(), request.attempt(), chosen.entry, d.epoch(),
        prefillView != null ? prefillView.entry : null, now, request.promptTokens(),
        request.plannedOutputTokens(), computeView.matchedTokens, d.cost().totalMillis(), work,
        computeView.estimatedQueueMillis,
        termMillis(d.cost(), CostTerm.QUEUE.termName(), Double.NaN));
    if (prefillView != null) {
      lease.move = new Lease.Move(s.kvTransferMillis(prefillView, chosen),
          termMillis(d.cost(), PairSelection.TRANSFER_TERM, 0), backlog,
          TransferBacklog.key(prefillView.entry.slot, chosen.entry.slot),
          Math.round(s.moveMillis(prefillView, chosen) * 1000));
    }
    // the probe flag is set before the lease is visible: an expiry right after the add returns it
    lease.probe = chosen.probe;
    checkArgument(leases.add(lease, now),
        "request: %s#%s (expected: an attempt not already in flight; retry with nextAttempt())",
        request.id(), request.attempt());
    chosen.probe = false;
    ReplicaEntry computeEntry = computeView.entry;
    computeEntry.ledger.dispatch(lease);
    if (prefillView != null) {
      chosen.entry.ledger.holdDecode(lease);
    }
    Lease superseded = leases.supersede(lease, now);
    if (superseded != null) {
      // exactly one attempt is authoritative: the older one is taken off the books (its outcome, if
      // it comes, is a DUPLICATE); its guess stays, as it may have run
      takeOff(superseded);
      counters.orphaned.increment();
    }
    int gen = computeEntry.indexGeneration;
    // on an exact replica the insert is speculative: it lasts while this attempt is open
    if (gen >= 0 && request.prompt().blockCount() > 0) {
      lease.insert = index.insertRouted(computeEntry.slot, gen, request.prompt(),
          computeView.matchedBlocks);
    }
    meanWork.record(work);
    orphanIfGone(lease, chosen.entry, d.epoch());
    if (prefillView != null) {
      orphanIfGone(lease, prefillView.entry, d.prefillEpoch());
    }
    return lease;
  }

  /**
   * {@code cost.millis(term).orElse(absent)} without the {@code OptionalDouble} that allocates on
   * every decision.
   */
  private static double termMillis(CostBreakdown cost, String term, double absent) {
    for (int i = 0, n = cost.size(); i < n; i++) {
      if (cost.term(i).equals(term)) {
        return cost.millis(i);
      }
    }
    return absent;
  }

  /**
   * The replica's process restarted, stopped or was removed while this route ran: its attempts were
   * orphaned before this one was recorded, so this one is orphaned now, and no books outlive the
   * process. (If that happens after this check, the orphaning finds the lease.)
   */
  private void orphanIfGone(Lease lease, ReplicaEntry entry, long epoch) {
    boolean gone = entry.removed || entry.epoch != epoch || entry.state() == ReplicaState.STOPPED;
    if (gone && leases.close(lease)) {
      takeOff(lease);
      counters.orphaned.increment();
      guard.listener().onOrphaned(entry.id, epoch, List.of(lease.ref()));
    }
  }

  /** Takes back what {@link #record} did, for a decision that never reached the host. */
  private void unrecord(Lease lease) {
    if (!leases.close(lease)) {
      return;
    }
    takeOff(lease);
    if (lease.insert != null) {
      index.rollback(lease.insert);
    }
  }

  /**
   * A closed attempt leaves its replicas' books, ends its speculative index entries and gives back
   * its breaker probe, if it had one.
   */
  private void takeOff(Lease lease) {
    Feedback.release(lease);
    Feedback.endSpeculation(index, lease);
    if (lease.probe) {
      lease.replica.breaker.releaseProbe();
    }
  }
}
