package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.UpdateResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.UniqueElements;
import net.jqwik.api.statistics.Statistics;

/**
 * Invariants of the whole router over arbitrary small fleets (replicas in any lifecycle state, serving
 * either of two models and three versions, with or without an adapter, restarted into newer epochs,
 * sent late reports from old ones, removed and rejoining) and arbitrary requests.
 */
class RouterProperties {
  private static final String[] MODELS = {"m0", "m1"};
  private static final String[] VERSIONS = {null, "v1", "v2"};
  private static final ReplicaState[] STATES = {ReplicaState.READY, ReplicaState.READY,
      ReplicaState.READY, ReplicaState.STARTING, ReplicaState.DRAINING, ReplicaState.STOPPED};
  private static final ReplicaRole[] ROLES = {ReplicaRole.MIXED, ReplicaRole.MIXED,
      ReplicaRole.MIXED, ReplicaRole.MIXED, ReplicaRole.PREFILL, ReplicaRole.DECODE};
  private static final long MS = 1_000_000L;

  // ------------------------------------------------------------------------------------ steps

  sealed interface Step permits Report, Cleared, Stored, Remove, Advance, Route, Finish {}

  /** A replica report; {@code observedAgoMillis} 3 means "not stamped" (the router's now). */
  record Report(int replica, long epoch, int state, int model, int version, int adapters,
      int loadable, Shape shape) implements Step {}

  record Shape(int role, int observedAgoMillis) {}

  /** A KV-cleared event, which may announce a newer epoch (a restart). */
  record Cleared(int replica, long epoch) implements Step {}

  /** The engine stored the first blocks of a prompt. */
  record Stored(int replica, long epoch, int seed, int tokens) implements Step {}

  record Remove(int replica) implements Step {}

  record Advance(int millis) implements Step {}

  record Route(int model, int version, int adapter, int seed, int tokens) implements Step {}

  /** The outcome of the {@code routed}-th routed attempt so far (modulo their number). */
  record Finish(int routed, int status) implements Step {}

  private static String id(int replica) {
    return "r" + replica;
  }

  /** Mostly the common case (index 0), sometimes the others up to {@code max}. */
  private static Arbitrary<Integer> mostly0(int max) {
    return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(0)),
        Tuple.of(1, Arbitraries.integers().between(0, max)));
  }

  private static Arbitrary<Report> reports() {
    Arbitrary<Shape> shape = Combinators.combine(Arbitraries.integers().between(0, 5),
        Arbitraries.integers().between(0, 3)).as(Shape::new);
    return Combinators.combine(Arbitraries.integers().between(0, 4),
        Arbitraries.longs().between(0, 3), Arbitraries.integers().between(0, 5), mostly0(1),
        mostly0(2), Arbitraries.integers().between(0, 1), Arbitraries.integers().between(0, 2),
        shape).as(Report::new);
  }

  private static Arbitrary<Route> routes() {
    return Combinators.combine(mostly0(1), mostly0(2), mostly0(1),
        Arbitraries.integers().between(0, 5), Arbitraries.integers().between(0, 2_000))
        .as(Route::new);
  }

  /** Fleet changes only. */
  @Provide
  Arbitrary<List<Step>> fleet() {
    return Arbitraries.frequencyOf(
        Tuple.of(10, reports().map(Step.class::cast)),
        Tuple.of(2, Combinators.combine(Arbitraries.integers().between(0, 4),
            Arbitraries.longs().between(0, 3)).as(Cleared::new)),
        Tuple.of(1, Arbitraries.integers().between(0, 4).map(Remove::new)))
        .list().ofMaxSize(25);
  }

  @Provide
  Arbitrary<List<Route>> requests() {
    return routes().list().ofMinSize(1).ofMaxSize(8);
  }

  /** Fleet changes interleaved with traffic, outcomes and time. */
  @Provide
  Arbitrary<List<Step>> traffic() {
    return Arbitraries.frequencyOf(
        Tuple.of(6, reports().map(Step.class::cast)),
        Tuple.of(1, Combinators.combine(Arbitraries.integers().between(0, 4),
            Arbitraries.longs().between(0, 3)).as(Cleared::new)),
        Tuple.of(2, Combinators.combine(Arbitraries.integers().between(0, 4),
            Arbitraries.longs().between(0, 3), Arbitraries.integers().between(0, 5),
            Arbitraries.integers().between(0, 4_000)).as(Stored::new)),
        Tuple.of(1, Arbitraries.integers().between(0, 4).map(Remove::new)),
        Tuple.of(4, Arbitraries.integers().between(0, 2_500).map(Advance::new)),
        Tuple.of(8, routes().map(Step.class::cast)),
        Tuple.of(4, Combinators.combine(Arbitraries.integers().between(0, 40),
            Arbitraries.integers().between(0, OutcomeStatus.values().length - 1))
            .as(Finish::new)))
        .list().ofMinSize(5).ofMaxSize(60);
  }

  /** Traffic heavy on KV events of long prompts, to press on the index budget. */
  @Provide
  Arbitrary<List<Step>> indexTraffic() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, reports().map(Step.class::cast)),
        Tuple.of(6, Combinators.combine(Arbitraries.integers().between(0, 4),
            Arbitraries.longs().between(0, 1), Arbitraries.integers().between(0, 20),
            Arbitraries.integers().between(0, 8_000).withDistribution(RandomDistribution.uniform()))
            .as(Stored::new)),
        Tuple.of(1, Combinators.combine(Arbitraries.integers().between(0, 4),
            Arbitraries.longs().between(0, 1)).as(Cleared::new)),
        Tuple.of(1, Arbitraries.integers().between(0, 4).map(Remove::new)),
        Tuple.of(6, routes().map(Step.class::cast)),
        Tuple.of(2, Combinators.combine(Arbitraries.integers().between(0, 40),
            Arbitraries.integers().between(0, OutcomeStatus.values().length - 1))
            .as(Finish::new)))
        .list().ofMinSize(5).ofMaxSize(60).map(RouterProperties::afterFirstReports);
  }

  /** Every replica reports READY at epoch 0 first: KV events for unknown replicas are dropped. */
  private static List<Step> afterFirstReports(List<Step> steps) {
    List<Step> all = new ArrayList<>();
    for (int r = 0; r <= 4; r++) {
      all.add(new Report(r, 0, 0, 0, 0, 0, 0, new Shape(0, 3)));
    }
    all.addAll(steps);
    return all;
  }

  // --------------------------------------------------------------------------------- the oracle

  /** Which replica is current in which epoch with which report, decided from the rules alone. */
  static final class Oracle {
    static final class Known {
      long epoch = -1;
      ReplicaSnapshot latest;
      long lastObserved = Long.MIN_VALUE;
    }

    final Map<String, Known> known = new HashMap<>();
    final Map<String, Long> removedAt = new HashMap<>();

    void report(ReplicaSnapshot s, long now) {
      Long gone = removedAt.get(s.replicaId());
      if (gone != null && s.epoch() <= gone) {
        return;
      }
      Known k = known.computeIfAbsent(s.replicaId(), x -> new Known());
      long observed = s.observedAtNanos().orElse(now);
      if (s.epoch() < k.epoch || (s.epoch() == k.epoch && observed < k.lastObserved)) {
        return;
      }
      if (s.epoch() > k.epoch) {
        k.lastObserved = Long.MIN_VALUE;
      }
      k.epoch = s.epoch();
      k.latest = s;
      k.lastObserved = observed;
    }

    void event(String replicaId, long epoch) {
      Long gone = removedAt.get(replicaId);
      if (gone != null && epoch <= gone) {
        return;
      }
      // only reports introduce replicas: an event for an unknown one is dropped
      Known k = known.get(replicaId);
      if (k == null) {
        return;
      }
      if (epoch > k.epoch) {
        if (k.epoch >= 0) {
          k.latest = null;
          k.lastObserved = Long.MIN_VALUE;
        }
        k.epoch = epoch;
      }
    }

    void remove(String replicaId) {
      Known k = known.remove(replicaId);
      if (k != null) {
        removedAt.put(replicaId, k.epoch);
      }
    }

    /** Eligible for a whole request, breakers aside. */
    boolean eligible(String replicaId, Request r) {
      Known k = known.get(replicaId);
      if (k == null || k.latest == null) {
        return false;
      }
      ReplicaSnapshot s = k.latest;
      boolean adapterOk = r.adapter().isEmpty()
          || s.residentAdapters().contains(r.adapter().get())
          || s.loadableAdapters().map(l -> l.contains(r.adapter().get())).orElse(true);
      return s.state() == ReplicaState.READY && s.role() == ReplicaRole.MIXED
          && s.model().equals(r.model())
          && (r.modelVersion().isEmpty() || r.modelVersion().equals(s.modelVersion()))
          && adapterOk;
    }

    long epoch(String replicaId) {
      return known.get(replicaId).epoch;
    }
  }

  // -------------------------------------------------------------------------------- the driver

  /** Applies steps to a router (and the oracle), keeping what it routed. */
  static final class Driver {
    final ManualTicker ticker = new ManualTicker();
    final Router router;
    final Oracle oracle = new Oracle();
    final List<Request> routedRequests = new ArrayList<>();
    final List<RoutingDecision> routedDecisions = new ArrayList<>();
    final List<Long> routedAtNanos = new ArrayList<>();
    final List<String> transcript = new ArrayList<>();
    final Set<ReplicaEntry> entries = Collections.newSetFromMap(new IdentityHashMap<>());
    int requests;

    Driver(RoutingPolicy policy, long seed, long budgetBytes) {
      ticker.advanceMillis(5);
      router = Router.newBuilder().policy(policy).ticker(ticker).seed(seed)
          .leaseTimeout(Duration.ofSeconds(1)).indexBudgetBytes(budgetBytes).build();
    }

    ReplicaSnapshot snapshot(Report r) {
      ReplicaSnapshot.Builder b = ReplicaSnapshot.newBuilder().replicaId(id(r.replica()))
          .epoch(r.epoch()).state(STATES[r.state()]).role(ROLES[r.shape().role()])
          .model(MODELS[r.model()]).estimatedQueueDelayMillis(r.replica() * 7.0);
      if (VERSIONS[r.version()] != null) {
        b.modelVersion(VERSIONS[r.version()]);
      }
      if (r.adapters() == 1) {
        b.residentAdapters(Set.of("a1"));
      }
      if (r.loadable() == 1) {
        b.loadableAdapters(Set.of());
      } else if (r.loadable() == 2) {
        b.loadableAdapters(Set.of("a1"));
      }
      if (r.shape().observedAgoMillis() < 3) {
        b.observedAtNanos(ticker.read() - r.shape().observedAgoMillis() * MS);
      }
      return b.build();
    }

    Request request(Route r) {
      String adapter = r.adapter() == 1 ? "a1" : null;
      // the prompt is hashed in the request's own namespace, as Request requires
      CacheNamespace ns = CacheNamespace.of(MODELS[r.model()], VERSIONS[r.version()], adapter);
      Request.Builder b = Request.newBuilder().id("q-" + ++requests).model(MODELS[r.model()])
          .prompt(PromptKey.ofTokens(TestData.tokens(r.tokens(), r.seed()), ns));
      if (VERSIONS[r.version()] != null) {
        b.modelVersion(VERSIONS[r.version()]);
      }
      if (adapter != null) {
        b.adapter(adapter);
      }
      return b.build();
    }

    void apply(Step step) {
      if (step instanceof Report r) {
        ReplicaSnapshot s = snapshot(r);
        oracle.report(s, ticker.read());
        transcript.add(step + " -> " + router.onSnapshot(s));
      } else if (step instanceof Cleared c) {
        oracle.event(id(c.replica()), c.epoch());
        transcript.add(step + " -> " + router.onKvEvent(KvEvent.cleared(id(c.replica()), c.epoch())));
      } else if (step instanceof Stored s) {
        oracle.event(id(s.replica()), s.epoch());
        PromptKey p = TestData.prompt(s.tokens(), s.seed());
        transcript.add(step + " -> "
            + router.onKvEvent(KvEvent.stored(id(s.replica()), s.epoch(), p.blockHashes())));
      } else if (step instanceof Remove r) {
        oracle.remove(id(r.replica()));
        transcript.add(step + " -> " + router.removeReplica(id(r.replica())));
      } else if (step instanceof Advance a) {
        ticker.advanceMillis(a.millis());
      } else if (step instanceof Route r) {
        route(request(r));
      } else if (step instanceof Finish f) {
        if (!routedRequests.isEmpty()) {
          int i = f.routed() % routedRequests.size();
          transcript.add(step + " -> " + finish(i, OutcomeStatus.values()[f.status()]));
        }
      }
      entries.addAll(Arrays.asList(router.fleet().members()));
    }

    RoutingDecision route(Request request) {
      RoutingDecision d = router.route(request);
      transcript.add(request.id() + " -> " + d);
      if (d.isRouted()) {
        routedRequests.add(request);
        routedDecisions.add(d);
        routedAtNanos.add(ticker.read());
        assertThat(oracle.eligible(d.replicaId(), request))
            .as("%s routed to %s, which is not eligible", request, d).isTrue();
        assertThat(d.epoch()).as("epoch of %s", d).isEqualTo(oracle.epoch(d.replicaId()));
      }
      return d;
    }

    UpdateResult finish(int i, OutcomeStatus status) {
      Request r = routedRequests.get(i);
      RoutingDecision d = routedDecisions.get(i);
      return router.onOutcome(io.github.kvroute.api.Outcome.newBuilder().requestId(r.id())
          .attempt(r.attempt()).replicaId(d.replicaId()).epoch(d.epoch()).status(status).build());
    }
  }

  private static RoutingPolicy policy(int kind) {
    return kind == 0 ? new LeastEstimatePolicy() : new RandomPickPolicy();
  }

  // ------------------------------------------------------------------------------- properties

  /** (a) A routed decision names an eligible replica, in its current epoch; none eligible: rejected. */
  @Property(tries = 300)
  void routedDecisionsNameOnlyEligibleReplicasInTheirCurrentEpoch(
      @ForAll("fleet") List<Step> fleet, @ForAll("requests") List<Route> requests,
      @ForAll @Size(max = 3) @UniqueElements List<@IntRange(min = 0, max = 4) Integer> broken,
      @ForAll @IntRange(min = 0, max = 1) int policyKind) {
    Driver driver = new Driver(policy(policyKind), 7, 1L << 24);
    fleet.forEach(driver::apply);
    for (int b : broken) {
      ReplicaEntry entry = driver.router.fleet().get(id(b));
      if (entry != null) {
        for (int i = 0; i < BreakerConfig.defaults().consecutiveFailures(); i++) {
          entry.breaker.onOutcome(true, false, driver.ticker.read());
        }
      }
    }

    for (Route r : requests) {
      Request request = driver.request(r);
      boolean anyEligible = false;
      for (String candidate : driver.oracle.known.keySet()) {
        anyEligible |= driver.oracle.eligible(candidate, request)
            && !broken.contains(Integer.parseInt(candidate.substring(1)));
      }

      RoutingDecision d = driver.route(request);

      assertThat(d.isRouted()).as("%s with eligible replicas: %s", d, anyEligible)
          .isEqualTo(anyEligible);
      Statistics.label("decision").collect(d.isRouted() ? "routed" : "rejected");
      Statistics.label("decision").coverage(c -> c.check("routed").percentage(p -> p >= 20));
      if (d.isRouted()) {
        assertThat(broken).as("breaker open on %s", d.replicaId())
            .doesNotContain(Integer.parseInt(d.replicaId().substring(1)));
      } else {
        assertThat(d.reason()).isEqualTo(RejectReason.NO_CANDIDATES);
      }
    }
  }

  /** (b) The same inputs and seed give the same decisions. */
  @Property(tries = 150)
  void sameInputsAndSeedGiveTheSameDecisions(@ForAll("traffic") List<Step> steps,
      @ForAll long seed) {
    Driver first = new Driver(new RandomPickPolicy(), seed, 1L << 24);
    Driver second = new Driver(new RandomPickPolicy(), seed, 1L << 24);

    steps.forEach(first::apply);
    steps.forEach(second::apply);

    assertThat(second.transcript).containsExactlyElementsOf(first.transcript);
    assertThat(second.router.stats()).isEqualTo(first.router.stats());
  }

  /** (c) After every attempt has an outcome, nothing is in flight and the totals add up. */
  @Property(tries = 200)
  void leasesAndInFlightBooksReturnToZeroAfterAllOutcomes(@ForAll("traffic") List<Step> steps,
      @ForAll @IntRange(min = 0, max = 1) int policyKind) {
    Driver driver = new Driver(policy(policyKind), 11, 1L << 24);
    steps.forEach(driver::apply);

    for (int i = 0; i < driver.routedRequests.size(); i++) {
      UpdateResult result = driver.finish(i, OutcomeStatus.SUCCESS);
      // closed attempts are remembered for twice the lease timeout (2 s here), then forgotten
      boolean remembered = driver.ticker.read() - driver.routedAtNanos.get(i) < 2_000 * MS;
      assertThat(result).as("outcome of %s", driver.routedRequests.get(i)).isIn(remembered
          ? List.of(UpdateResult.APPLIED, UpdateResult.DUPLICATE)
          : List.of(UpdateResult.APPLIED, UpdateResult.DUPLICATE, UpdateResult.UNKNOWN_REQUEST));
    }

    RouterStats stats = driver.router.stats();
    Statistics.label("orphaned").collect(stats.orphaned() > 0);
    Statistics.label("expired").collect(stats.expired() > 0);
    Statistics.label("routed").collect(stats.routed() > 0);
    Statistics.label("routed").coverage(c -> c.check(true).percentage(p -> p >= 30));
    Statistics.label("orphaned").coverage(c -> c.check(true).percentage(p -> p >= 5));
    Statistics.label("expired").coverage(c -> c.check(true).percentage(p -> p >= 2));
    assertThat(stats.inFlight()).isZero();
    assertThat(stats.routed()).isEqualTo(driver.routedRequests.size());
    assertThat(stats.routed())
        .isEqualTo(stats.outcomesApplied() + stats.expired() + stats.orphaned());
    assertThat(stats.decisions()).isEqualTo(driver.requests);
    assertThat(stats.pluginFailures()).isZero();
    for (ReplicaEntry entry : driver.entries) {
      LedgerReading r = new LedgerReading();
      entry.ledger.read(driver.ticker.read(), r);
      assertThat(r.inFlightRequests).as("in flight on %s", entry).isZero();
      assertThat(r.inFlightTokens).as("in-flight tokens on %s", entry).isZero();
      assertThat(r.sinceCount).as("unreported sends on %s", entry).isZero();
    }
  }

  /** (d) With the minimum budget the index never exceeds it, whatever the traffic and events. */
  @Property(tries = 150)
  void theIndexStaysWithinItsBudget(@ForAll("indexTraffic") List<Step> steps) {
    Driver driver = new Driver(new LeastEstimatePolicy(), 13, PrefixIndex.MIN_BUDGET_BYTES);
    long peak = 0;

    for (Step step : steps) {
      driver.apply(step);

      long arrays = driver.router.index().footprintBytes();
      RouterStats stats = driver.router.stats();
      peak = Math.max(peak, stats.indexBytes());
      assertThat(stats.indexBytes()).as("after %s", step)
          .isLessThanOrEqualTo(stats.indexBudgetBytes());
      long perSlot = 0;
      for (ReplicaEntry entry : driver.router.fleet().members()) {
        perSlot += driver.router.index().slotEntries(entry.slot);
      }
      assertThat(stats.indexEntries()).as("entries after %s", step).isEqualTo(perSlot);
      assertThat(stats.indexBlocks()).isLessThanOrEqualTo(stats.indexEntries());
      assertThat(arrays).as("arrays after %s", step).isLessThanOrEqualTo(stats.indexBytes());
    }
    boolean full = peak + PrefixIndex.ENTRY_BYTES + PrefixIndex.runBytes(1)
        + PrefixIndex.BLOCK_BYTES > PrefixIndex.MIN_BUDGET_BYTES;
    Statistics.label("budget reached").collect(full);
    Statistics.label("budget reached").coverage(c -> c.check(true).percentage(p -> p >= 10));
  }
}
