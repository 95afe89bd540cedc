package io.github.kvroute.sim;

import com.google.common.collect.Iterators;
import com.google.common.collect.PeekingIterator;
import io.github.kvroute.advisors.CanaryComparison;
import io.github.kvroute.advisors.CanarySplit;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.core.Admission;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.core.HedgeAdvisor;
import io.github.kvroute.core.ReplicaStatus;
import io.github.kvroute.core.Router;
import io.github.kvroute.core.Topology;
import io.github.kvroute.core.TransferCost;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One run: a scenario's workload through {@code routers()} real {@link Router}s onto simulated replicas,
 * in virtual time.
 *
 * <h2>Design notes</h2>
 * Everything happens in one {@link EventQueue}: arrivals (pulled lazily from the workload, one ahead),
 * engine steps, telemetry and KV-event deliveries, crashes and cold starts, retries. The wall clock is
 * read only around {@link Router#route}, for the decision-time columns. Randomness comes from the
 * scenario seed (telemetry phases here; the workload and each router get their own derived seeds), so
 * a run is a pure function of (scenario, policy) apart from those two columns.
 *
 * <p>Request {@code k} (in arrival order) belongs to router {@code k mod N}, which routes all its
 * attempts and receives their outcomes the moment they end. A routed attempt reaches its replica at
 * once; a rejected request ends as rejected (no client retry); an attempt failed by a crash is retried
 * once through the same router when the scenario allows. When arrivals are over, a time limit ends
 * whatever is still unfinished as failed, so a fleet that cannot drain still terminates (and says so in
 * the checks).
 *
 * <p>Not thread-safe: a run uses one thread; separate runs are independent.
 */
final class Simulation implements ReplicaHost {
  /** How the routers get their policy. */
  interface PolicyChoice {
    String name();

    void configure(Router.Builder builder);
  }

  private final Scenario scenario;
  private final PolicyChoice policy;
  private final ProgressListener progress;
  private final FleetProbe probe;
  /** Hit ratios further apart than this flag a canary comparison as measuring cache temperature. */
  static final double CANARY_MAX_HIT_RATIO_GAP = 0.1;
  private final CanarySplit canary;
  private long arrivedPromptTokens;
  private long arrivedOutputTokens;
  private final List<RequestRecord> records;
  private final EventQueue events = new EventQueue();
  private final Measurements metrics;
  private final Counters counters = new Counters();

  private Router[] routers;
  private ReplicaEngine[] replicas;
  private final Map<String, ReplicaEngine> byId = new HashMap<>();
  private final BlockRegistry registry;
  private Telemetry telemetry;
  private PeekingIterator<SimRequest> arrivals;
  private String model;
  private long expected;
  private long progressEvery;
  private boolean arrivalsDone;
  private boolean timeLimitHit;
  private long timeLimitNanos = Long.MAX_VALUE;
  /** The transfer stage: when each prefill-to-decode link is free (one KV move at a time per link). */
  private long[][] linkFreeAtNanos;
  /** Each router's hedging advisor when the run hedges; null otherwise. */
  private HedgeAdvisor[] advisors;
  /** Which attempts strand on the slow tail (its own stream, so hedging does not shift the rest). */
  private final SplittableRandom slowPaths;

  /** Tallies the self-checks compare with the routers' own. */
  static final class Counters {
    long routeCalls;
    long routed;
    long rejections;
    long outcomesSent;
    long firstTokensSent;
    long retries;
    long ended;
    long endedByTimeLimit;
    /** Attempts routed to a replica after its router was told it was dead or not ready. */
    long routedWhenKnownUnroutable;
    long[] inFlight;
  }

  Simulation(Scenario scenario, PolicyChoice policy, ProgressListener progress,
      boolean recordRequests) {
    this(scenario, policy, progress, recordRequests, null);
  }

  /** @param probe samples the fleet during the run; null for none */
  Simulation(Scenario scenario, PolicyChoice policy, ProgressListener progress,
      boolean recordRequests, FleetProbe probe) {
    this.scenario = scenario;
    this.policy = policy;
    this.progress = progress;
    this.probe = probe;
    this.records = recordRequests ? new ArrayList<>() : null;
    this.metrics = new Measurements(scenario.replicas(), scenario.ttftSloMillis());
    this.canary = scenario.canary().map(Scenario.Canary::split).orElse(null);
    if (canary != null) {
      metrics.canary = new CanaryComparison(canary, CANARY_MAX_HIT_RATIO_GAP);
    }
    this.registry = new BlockRegistry();
    this.metrics.classNotes = !scenario.controls().label().isEmpty();
    this.slowPaths = new SplittableRandom(scenario.seed() ^ 0x51077A11L);
    this.metrics.hedgeNotes = scenario.name().startsWith("slow-tail");
  }

  SimulationResult run() {
    long wallStart = System.nanoTime();
    arrivals = Iterators.peekingIterator(scenario.workload().requests(
        scenario.seed(), scenario.requests(), scenario.rateScale(), scenario.blockSizeTokens()));
    if (!arrivals.hasNext()) {
      throw new IllegalArgumentException("workload: no requests (expected: at least one)");
    }
    model = arrivals.peek().model();
    expected = Math.min(scenario.requests(), scenario.workload().size().orElse(Integer.MAX_VALUE));
    progressEvery = Math.max(1, expected / 100);
    build();
    telemetry.start();
    for (Scenario.Restart r : scenario.restarts()) {
      ReplicaEngine replica = replicas[r.replica()];
      events.schedule(r.atMillis() * 1_000_000L, () -> {
        telemetry.crashing(replica);
        replica.restart();
      });
    }
    scheduleNextArrival();
    if (probe != null) {
      events.schedule(probe.intervalMillis() * 1_000_000L, this::sample);
    }
    while (!(arrivalsDone && counters.ended == metrics.offered)) {
      if (events.isEmpty()) {
        throw new IllegalStateException("simulation: no events left with "
            + (metrics.offered - counters.ended) + " requests unfinished");
      }
      events.runNext();
      if (timeLimitHit && events.read() > timeLimitNanos && counters.ended < metrics.offered) {
        throw new IllegalStateException("simulation: " + (metrics.offered - counters.ended)
            + " requests lost (not ended by the time limit)");
      }
    }
    progress.progress(counters.ended, counters.ended);
    List<String> checks = new SelfChecks(metrics, counters, routers, replicas, registry, telemetry,
        timeLimitHit).verify();
    List<SimulationResult.Calibration> calibration = calibration();
    checks = new ArrayList<>(checks);
    checks.add(SimulationResult.Calibration.note(calibration));
    double wallSeconds = (System.nanoTime() - wallStart) / 1e9;
    return SimulationResult.from(policy.name(), scenario, metrics, replicas, events.read(),
        wallSeconds, checks, calibration);
  }

  List<RequestRecord> records() {
    return records;
  }

  /**
   * Router 0's prior and learnt prefill cost per token for each replica, beside the truth (its
   * engine's: a slowed replica's is the slower one).
   */
  private List<SimulationResult.Calibration> calibration() {
    Router r = routers[0];
    List<SimulationResult.Calibration> out = new ArrayList<>();
    for (ReplicaStatus st : r.replicas()) {
      ReplicaEngine engine = byId.get(st.replicaId());
      double truth = (engine != null ? engine.model : scenario.replicaModel())
          .prefillMillisPerToken();
      out.add(new SimulationResult.Calibration(st.replicaId(), truth,
          r.costModel().prefillMillisPerToken(),
          st.learntPrefillMillisPerToken().orElse(st.prefillMillisPerToken())));
    }
    return out;
  }

  private void build() {
    int n = scenario.routers();
    ReplicaModel m = scenario.replicaModel();
    CostModel costModel = RouterPrior.of(m, scenario.priorErrorFactor(), scenario.seed());
    routers = new Router[n];
    for (int i = 0; i < n; i++) {
      Router.Builder b = Router.newBuilder()
          .ticker(events)
          .seed(scenario.seed() + i)
          .blockSizeTokens(scenario.blockSizeTokens())
          .indexBudgetBytes(64L << 20)
          .indexCompactionExecutor(Runnable::run)
          .defaultReplicaCacheTokens(m.kvCapacityTokens())
          .costModel(costModel)
          .peerRouters(n - 1)
          .leaseTimeout(Duration.ofDays(7))
          .topology(scenario.topology());
      if (scenario.controls().tiers()) {
        b.admission(Admission.newBuilder()
            .fleetBacklogLimit(Duration.ofMillis(Math.round(scenario.ttftSloMillis())))
            .tenantFairness(Map.of())
            .build());
      }
      policy.configure(b);
      routers[i] = b.build();
    }
    counters.inFlight = new long[n];
    if (scenario.controls().hedging()) {
      advisors = new HedgeAdvisor[n];
      for (int i = 0; i < n; i++) {
        advisors[i] = HedgeAdvisor.newBuilder().build();
      }
    }
    linkFreeAtNanos = new long[scenario.replicas()][scenario.replicas()];
    replicas = new ReplicaEngine[scenario.replicas()];
    for (int i = 0; i < replicas.length; i++) {
      Faults faults = scenario.faults();
      ReplicaModel engine = i == faults.slowReplica() ? m.slowedBy(faults.slowFactor()) : m;
      ReplicaRole role = !scenario.disaggregated() ? ReplicaRole.MIXED
          : i < scenario.prefillReplicas() ? ReplicaRole.PREFILL : ReplicaRole.DECODE;
      replicas[i] = new ReplicaEngine(i, engine, role, scenario.blockSizeTokens(), registry,
          scenario.kvEvents(), this);
      byId.put(replicas[i].id, replicas[i]);
      if (i >= replicas.length - scenario.standbyReplicas()) {
        replicas[i].park();
      }
    }
    SplittableRandom random = new SplittableRandom(scenario.seed() ^ 0x7E1E7E1E7E1EL);
    telemetry = new Telemetry(scenario, events, routers, replicas, model, random);
  }

  private void scheduleNextArrival() {
    if (!arrivals.hasNext()) {
      arrivalsDone = true;
      timeLimitNanos = metrics.lastArrivalNanos + scenario.timeLimitMillis() * 1_000_000L;
      events.schedule(timeLimitNanos, this::timeLimit);
      return;
    }
    SimRequest r = arrivals.next();
    if (r.arrivalNanos() < metrics.lastArrivalNanos) {
      throw new IllegalArgumentException(r.id() + ".arrivalNanos: " + r.arrivalNanos()
          + " (expected: >= the previous arrival " + metrics.lastArrivalNanos + ")");
    }
    if (!r.model().equals(model)) {
      throw new IllegalArgumentException(r.id() + ".model: " + r.model() + " (expected: " + model
          + ", the model of the run)");
    }
    if (r.prompt().blockCount() > 0 && r.prompt().blockSizeTokens() != scenario.blockSizeTokens()) {
      throw new IllegalArgumentException(r.id() + ".prompt.blockSizeTokens: "
          + r.prompt().blockSizeTokens() + " (expected: " + scenario.blockSizeTokens() + ")");
    }
    metrics.arrival(r.arrivalNanos());
    metrics.offeredByClass(r);
    events.schedule(r.arrivalNanos(), () -> arrive(r));
  }

  private void arrive(SimRequest r) {
    arrivedPromptTokens += r.promptTokens();
    arrivedOutputTokens += r.outputTokens();
    RequestState st = new RequestState(r, (int) ((metrics.offered - 1) % routers.length));
    scheduleNextArrival();
    attempt(st);
  }

  private void attempt(RequestState st) {
    attempt(st, null);
  }

  /** The router's view of {@code r}'s first attempt, with the budget the routers are told. */
  private Request firstAttempt(SimRequest r) {
    return r.toRouterRequest(scenario.routerBudget(r));
  }

  /** Routes {@code st}'s next attempt, or {@code hedge} (a hedge attempt) when given. */
  private void attempt(RequestState st, Request hedge) {
    if (timeLimitHit) {
      end(st, RequestState.End.FAILED, "simulation time limit", null);
      counters.endedByTimeLimit++;
      return;
    }
    st.attempts++;
    Request request = hedge != null ? hedge : st.current != null ? st.current.nextAttempt()
        : canary == null ? firstAttempt(st.request) : versioned(firstAttempt(st.request));
    st.current = request;
    Router router = routers[st.router];
    long t0 = System.nanoTime();
    RoutingDecision d = router.route(request);
    metrics.decisionNanos.recordValue(Math.max(0, System.nanoTime() - t0));
    counters.routeCalls++;
    if (!d.isRouted()) {
      counters.rejections++;
      end(st, RequestState.End.REJECTED, (st.attempts > 1 ? "retry " : "") + d.reason(), null);
      return;
    }
    counters.routed++;
    st.predicted = d.cost();
    if (!st.admitted) {
      st.admitted = true;
      metrics.admitted++;
      metrics.admittedPromptTokens += st.request.promptTokens();
    }
    counters.inFlight[st.router]++;
    ReplicaEngine replica = byId.get(d.replicaId());
    if (replica == null) {
      throw new IllegalStateException("router chose unknown replica " + d.replicaId());
    }
    if (telemetry.knewUnroutable(st.router, replica.index, d.epoch())) {
      counters.routedWhenKnownUnroutable++;
    }
    if (d.prefillReplicaId().isPresent()) {
      ReplicaEngine prefill = byId.get(d.prefillReplicaId().get());
      Sequence s = new Sequence(st, st.attempts, prefill.index, d.prefillEpoch());
      s.decodeReplica = replica.index;
      s.decodeEpoch = d.epoch();
      prefill.receive(s);
      return;
    }
    Sequence s = new Sequence(st, request.attempt(), replica.index, d.epoch());
    if (hedge != null && st.racing.stream().anyMatch(first -> first.replica == replica.index)) {
      metrics.hedgesOnFirstReplica++;
    }
    if (advisors != null) {
      st.racing.add(s);
      if (hedge == null && st.attempts == 1) {
        adviseHedge(st, d);
      }
    }
    if (scenario.slowTailShare() > 0 && slowPaths.nextDouble() < scenario.slowTailShare()) {
      // stranded on a slow path; a hedge may answer first, and then this attempt is dropped
      events.schedule(events.read() + scenario.slowTailMillis() * 1_000_000L, () -> {
        if (s.cancelled) {
          return; // its cancellation was reported when the other attempt answered
        }
        replica.receive(s);
      });
      return;
    }
    replica.receive(s);
  }

  /** Asks the router's hedging advisor, and schedules the hedge it advises. */
  private void adviseHedge(RequestState st, RoutingDecision d) {
    st.firstPredictedMillis = d.cost().totalMillis();
    HedgeAdvisor.Advice advice = advisors[st.router].advise(d);
    if (!advice.hedge()) {
      return;
    }
    events.schedule(events.read() + advice.after().toNanos(), () -> {
      if (st.end != null || st.firstTokenAttempt >= 0 || timeLimitHit) {
        return;
      }
      advisors[st.router].startHedge(st.current).ifPresent(h -> {
        st.hedged = true;
        metrics.hedges++;
        metrics.hedgePrefillTokens += st.request.promptTokens();
        attempt(st, h);
      });
    });
  }

  /**
   * The transfer stage: the prefill half's KV moves to its decode replica over their link, one move
   * at a time per link, taking {@code tokens x KV bytes per token / link bandwidth}; then the decode
   * half arrives there.
   */
  @Override
  public void prefilled(ReplicaEngine prefill, Sequence s) {
    ReplicaEngine decode = replicas[s.decodeReplica];
    double bytesPerSecond = scenario.topology().bytesPerSecond(prefill.id, decode.id,
        Topology.REFERENCE_BYTES_PER_SECOND);
    long moveNanos = Math.round(TransferCost.millis(s.promptTokens,
        scenario.replicaModel().kvBytesPerToken(), bytesPerSecond) * 1e6);
    long now = events.read();
    long start = Math.max(now, linkFreeAtNanos[prefill.index][decode.index]);
    long done = start + moveNanos;
    linkFreeAtNanos[prefill.index][decode.index] = done;
    metrics.transfers++;
    metrics.transferNanos += done - now;
    RequestState st = s.request;
    st.pairEnqueuedAtNanos = s.enqueuedAtNanos;
    st.pairAdmittedAtNanos = s.firstAdmittedAtNanos;
    st.pairCachedTokens = s.firstCachedTokens;
    st.pairPrefilledAtNanos = now;
    // the gateway's prefill request answered (vLLM's proxy flow): the router's books learn it now
    routers[st.router].onPrefillDone(st.request.id(), s.attempt, prefill.id, s.routedEpoch);
    events.schedule(done, () -> {
      Sequence half = new Sequence(st, s.attempt, decode.index, s.decodeEpoch);
      half.kvArrived = true;
      half.pairedFrom = prefill.index;
      decode.receive(half);
    });
  }

  /** A first attempt with the model version the canary split gives it (sticky by session). */
  /**
   * {@code r} for the version the canary split gives it, its prompt keyed in that version's cache
   * namespace (one version's KV is no use to another).
   */
  private Request versioned(Request r) {
    String version = canary.versionFor(r);
    PromptKey p = r.prompt();
    PromptKey keyed = p.blockCount() == 0 ? p : PromptKey.ofBlockHashes(p.blockHashes(),
        p.blockSizeTokens(), p.tokenCount(),
        CacheNamespace.of(r.model(), version, r.adapter().orElse(null)));
    return r.toBuilder().modelVersion(version).prompt(keyed).build();
  }

  private void end(RequestState st, RequestState.End end, String reason, Sequence last) {
    if (st.end != null) {
      throw new IllegalStateException("request " + st.request.id() + " ended twice (" + st.end + ", "
          + end + ")");
    }
    st.end = end;
    switch (end) {
      case COMPLETED -> { }
      case REJECTED -> metrics.rejected(reason);
      case FAILED -> metrics.failed(reason);
    }
    counters.ended++;
    if (records != null) {
      long arrival = st.request.arrivalNanos();
      boolean done = end == RequestState.End.COMPLETED;
      records.add(new RequestRecord(st.request.id(), end, reason == null ? "" : reason,
          done ? last.firstTokenAtNanos - arrival : -1, done ? events.read() - arrival : -1,
          last == null ? 0 : last.firstCachedTokens,
          last == null ? "" : "replica-" + last.replica, st.attempts,
          done ? last.firstAdmittedAtNanos - last.enqueuedAtNanos : -1, st.predicted));
    }
    if (counters.ended % progressEvery == 0 && counters.ended < expected) {
      progress.progress(counters.ended, expected);
    }
  }

  /** One {@link FleetProbe} sample, and the next while requests are unfinished. */
  private void sample() {
    Map<String, Double> queueMillis = new HashMap<>();
    for (ReplicaStatus st : routers[0].replicas()) {
      queueMillis.put(st.replicaId(), st.estimatedQueueMillis());
    }
    List<FleetProbe.Replica> fleet = new ArrayList<>(replicas.length);
    for (ReplicaEngine r : replicas) {
      int total = r.kv.totalBlocks();
      fleet.add(new FleetProbe.Replica(r.id, r.state() == io.github.kvroute.api.ReplicaState.READY,
          r.waitingCount(), r.queuedPrefillTokens(),
          total == 0 ? 0 : Math.min(1, (double) r.kv.usedBlocks() / total),
          queueMillis.getOrDefault(r.id, 0.0), r.kv.cachedBlocks()));
    }
    probe.sample(new FleetProbe.Sample(events.read(), metrics.offered, arrivedPromptTokens,
        arrivedOutputTokens, fleet));
    if (probe instanceof FleetController controller) {
      int active = 0;
      for (ReplicaEngine r : replicas) {
        active += r.parked() ? 0 : 1;
      }
      for (ReplicaEngine r : replicas) {
        if (active >= controller.wantedReplicas()) {
          break;
        }
        if (r.parked()) {
          r.start();
          active++;
        }
      }
    }
    if (!(arrivalsDone && counters.ended == metrics.offered)) {
      events.schedule(events.read() + probe.intervalMillis() * 1_000_000L, this::sample);
    }
  }

  private void timeLimit() {
    if (counters.ended == metrics.offered) {
      return;
    }
    timeLimitHit = true;
    for (ReplicaEngine r : replicas) {
      r.abortAll(OutcomeStatus.TIMEOUT, "simulation time limit");
    }
  }

  private void report(Sequence s, Outcome outcome) {
    int router = s.request.router;
    if (--counters.inFlight[router] < 0) {
      throw new IllegalStateException("router " + router + ": negative in-flight after " + s);
    }
    routers[router].onOutcome(outcome);
    counters.outcomesSent++;
  }

  /** An outcome names the routed replica: for a disaggregated attempt, its decode replica. */
  private Outcome.Builder outcome(ReplicaEngine r, Sequence s, OutcomeStatus status) {
    Outcome.Builder b = Outcome.newBuilder().requestId(s.request.request.id()).attempt(s.attempt)
        .status(status);
    return s.handsOff() ? b.replicaId(replicas[s.decodeReplica].id).epoch(s.decodeEpoch)
        : b.replicaId(r.id).epoch(s.routedEpoch);
  }

  // ------------------------------------------------------------------------------ ReplicaHost

  @Override
  public long now() {
    return events.read();
  }

  @Override
  public void schedule(long atNanos, Runnable action) {
    events.schedule(atNanos, action);
  }

  @Override
  public void prefillStarted(Sequence s, int cachedTokens, long recomputedTokens, boolean firstPass) {
    metrics.recomputedTokens += recomputedTokens;
    if (firstPass && !s.request.firstPrefillMeasured) {
      s.request.firstPrefillMeasured = true;
      metrics.cachedPromptTokens += cachedTokens;
    }
  }

  @Override
  public void firstToken(ReplicaEngine r, Sequence s) {
    RequestState st = s.request;
    if (s.cancelled) {
      return; // cancelled when the other attempt answered; the engine drops it now
    }
    st.firstTokenAttempt = s.attempt;
    // the first attempt of a hedged request to answer is authoritative: the host cancels the other
    for (Sequence other : st.racing) {
      if (other != s && !other.cancelled) {
        other.cancelled = true;
        report(other, outcome(replicas[other.replica], other, OutcomeStatus.CANCELLED).build());
      }
    }
    st.racing.clear();
    routers[st.router].onFirstToken(st.request.id(), s.attempt, r.id, s.routedEpoch);
    counters.firstTokensSent++;
  }

  @Override
  public void finished(ReplicaEngine r, Sequence s) {
    // what a gateway reads off the response: its own TTFT and the completion's usage (cached tokens
    // in prompt_tokens_details); the engine-side queue time only from an instrumented engine
    // a disaggregated attempt's TTFT, reuse, queue and prefill time are its prefill half's, from the
    // router's send
    boolean pair = s.pairedFrom >= 0;
    long enqueued = pair ? s.request.pairEnqueuedAtNanos : s.enqueuedAtNanos;
    Outcome.Builder b = outcome(r, s, OutcomeStatus.SUCCESS)
        .ttft(Duration.ofNanos(s.firstTokenAtNanos - enqueued))
        .cachedTokens(pair ? s.request.pairCachedTokens : s.firstCachedTokens)
        .outputTokens(s.generated);
    if (pair) {
      // the gateway's own prefill request answered when the prefill ended (vLLM's proxy flow)
      b.prefillTime(Duration.ofNanos(s.request.pairPrefilledAtNanos - enqueued));
    }
    if (scenario.telemetry().outcomeQueueTime()) {
      long admitted = pair ? s.request.pairAdmittedAtNanos : s.firstAdmittedAtNanos;
      b.queueTime(Duration.ofNanos(admitted - enqueued));
    }
    report(s, b.build());
    long arrival = s.request.request.arrivalNanos();
    if (metrics.canary != null) {
      metrics.canary.record(s.request.current.modelVersion().orElseThrow(),
          Duration.ofNanos(s.firstTokenAtNanos - arrival), s.firstCachedTokens > 0);
    }
    metrics.completed(s.firstTokenAtNanos - arrival, events.read() - arrival,
        s.request.request.ttftBudget());
    metrics.byClass(s.request.request, s.firstTokenAtNanos - arrival);
    if (advisors != null && !Double.isNaN(s.request.firstPredictedMillis)) {
      advisors[s.request.router].onOutcome(s.request.firstPredictedMillis,
          (s.firstTokenAtNanos - arrival) / 1e6, s.request.hedged);
    }
    end(s.request, RequestState.End.COMPLETED, null, s);
  }

  @Override
  public void failed(ReplicaEngine r, Sequence s, OutcomeStatus status, String reason,
      boolean retryable) {
    report(s, outcome(r, s, status).build());
    RequestState st = s.request;
    if (retryable && scenario.retries() && st.attempts < 2 && !timeLimitHit) {
      counters.retries++;
      st.firstTokenAttempt = -1;
      events.schedule(events.read(), () -> attempt(st));
    } else {
      end(st, RequestState.End.FAILED, reason, s);
      if (timeLimitHit) {
        counters.endedByTimeLimit++;
      }
    }
  }

  @Override
  public void work(ReplicaEngine r, long tokens, long atNanos) {
    metrics.work(r.index, atNanos, tokens);
  }

  @Override
  public void kvEvents(ReplicaEngine r, List<KvEvent> published) {
    telemetry.publish(r, published);
  }
}
