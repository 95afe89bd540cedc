package io.github.kvroute.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import io.github.kvroute.core.ReplicaStatus;
import io.github.kvroute.core.Router;
import io.github.kvroute.core.RouterStats;
import io.github.kvroute.testkit.AbsurdInputs.KvEventInput;
import io.github.kvroute.testkit.AbsurdInputs.OutcomeInput;
import io.github.kvroute.testkit.AbsurdInputs.RequestInput;
import io.github.kvroute.testkit.AbsurdInputs.SnapshotInput;
import io.github.kvroute.api.RouterListener;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Fuzzing with boundary and absurd values: every input either builds or fails with a clear
 * {@code name: value (expected: ...)} error, and a router answers every input that builds with a value
 * (never an exception where a value is documented), keeping its books sane: no negative counter, the
 * index within its budget, the attempt arithmetic adding up, and every attempt closable.
 */
class AbsurdInputProperties {
  /** {@code name: value (expected: ...)}; the value may be empty or span lines. */
  private static final Pattern CLEAR = Pattern.compile("^[\\w.()\\[\\] ]+: .*\\(expected: .+\\)$",
      Pattern.DOTALL);
  private static final long BUDGET = 64 * 1024;

  @Provide
  Arbitrary<RequestInput> requests() {
    return AbsurdArbitraries.requests();
  }

  @Provide
  Arbitrary<SnapshotInput> snapshots() {
    return AbsurdArbitraries.snapshots();
  }

  @Provide
  Arbitrary<KvEventInput> kvEvents() {
    return AbsurdArbitraries.kvEvents();
  }

  @Provide
  Arbitrary<OutcomeInput> outcomes() {
    return AbsurdArbitraries.outcomes();
  }

  /** Requests, reports, KV events, outcomes, removals and time steps, in any order. */
  @Provide
  Arbitrary<List<Object>> steps() {
    return Arbitraries.frequencyOf(
        Tuple.of(6, AbsurdArbitraries.requests().map(Object.class::cast)),
        Tuple.of(3, AbsurdArbitraries.snapshots().map(Object.class::cast)),
        Tuple.of(2, AbsurdArbitraries.kvEvents().map(Object.class::cast)),
        Tuple.of(4, AbsurdArbitraries.outcomes().map(Object.class::cast)),
        Tuple.of(1, AbsurdArbitraries.replicaIds().map(Remove::new)),
        Tuple.of(1, Arbitraries.longs().between(1, 3_600_000).map(Advance::new)))
        .list().ofMinSize(1).ofMaxSize(40);
  }

  @Property
  void requestsBuildOrFailClearly(@ForAll("requests") RequestInput input) {
    buildsOrFailsClearly(input::build);
  }

  @Property
  void reportsBuildOrFailClearly(@ForAll("snapshots") SnapshotInput input) {
    buildsOrFailsClearly(input::build);
  }

  @Property
  void kvEventsBuildOrFailClearly(@ForAll("kvEvents") KvEventInput input) {
    buildsOrFailsClearly(input::build);
  }

  @Property
  void outcomesBuildOrFailClearly(@ForAll("outcomes") OutcomeInput input) {
    buildsOrFailsClearly(() -> input.build("req-1", 1, "replica-0", 0));
  }

  /**
   * Every input that builds gets a value from the router, and after each one its books are sane; at
   * the end every routed attempt can be closed (nothing left in flight anywhere) and a newly joined
   * replica takes a request.
   */
  @Property(tries = 300)
  void aRouterAnswersEveryInputThatBuildsWithAValue(@ForAll("steps") List<Object> steps) {
    ManualTicker ticker = new ManualTicker();
    PluginFailures failures = new PluginFailures();
    try (Router router = Router.newBuilder().policy(new LeastEstimate()).ticker(ticker).seed(5)
        .indexBudgetBytes(BUDGET).listener(failures).build()) {
      for (int i = 0; i < AbsurdArbitraries.FLEET; i++) {
        router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("replica-" + i)
            .model(KvrouteArbitraries.MODEL).build());
      }
      List<Routed> routed = new ArrayList<>();
      int n = 0;
      for (Object step : steps) {
        n++;
        play(router, ticker, step, n, routed);
        assertSane(router, "after step " + n + ": " + step);
        assertThat(failures.seen).as("plugin failures after step %d: %s", n, step).isEmpty();
      }
      for (Routed r : routed) {
        Outcome close = Outcome.newBuilder().requestId(r.request().id()).attempt(r.request().attempt())
            .replicaId(r.decision().replicaId()).epoch(r.decision().epoch())
            .status(OutcomeStatus.SUCCESS).build();
        assertThat(value(() -> router.onOutcome(close), "onOutcome", close)).isNotNull();
      }
      assertThat(router.stats().inFlight()).as("in flight after closing every attempt").isZero();
      for (ReplicaStatus s : router.replicas()) {
        assertThat(s.inFlightRequests()).as("%s in flight after closing every attempt", s.replicaId())
            .isZero();
      }
      UpdateResult joined = router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("newcomer")
          .model(KvrouteArbitraries.MODEL).build());
      RoutingDecision d = router.route(Request.newBuilder().id("after-the-fuzz")
          .model(KvrouteArbitraries.MODEL).prompt(PromptKey.unhashed(100)).build());
      assertThat(joined).isEqualTo(UpdateResult.APPLIED);
      assertThat(d.isRouted()).as("a plain request after the fuzz: %s", d).isTrue();
    }
  }

  /**
   * The smallest case the fuzz found after the arithmetic fixes: a replica reporting a subnormal
   * prefill rate (so an infinite time per token) and an empty prompt, where 0 tokens x infinity made
   * the built-in prefill term and the queue estimate NaN.
   */
  @Example
  void anEmptyPromptOnAReplicaReportingASubnormalPrefillRateCostsNoNaN() {
    PluginFailures failures = new PluginFailures();
    try (Router router = Router.newBuilder().policy(new LeastEstimate()).ticker(new ManualTicker())
        .indexBudgetBytes(BUDGET).listener(failures).build()) {
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("replica-0").epoch(0)
          .model(KvrouteArbitraries.MODEL).prefillTokensPerSecond(Double.MIN_VALUE).build());
      RoutingDecision d = router.route(Request.newBuilder().id("empty").model(KvrouteArbitraries.MODEL)
          .prompt(PromptKey.unhashed(0)).build());

      assertThat(failures.seen).as("decision %s", d).isEmpty();
      assertThat(router.replicas().get(0).estimatedQueueMillis()).isNotNaN();
    }
  }

  private record Routed(Request request, RoutingDecision decision) {}

  /** Plugins here are the test's own (a policy, standard admission): none may fail. */
  private static final class PluginFailures implements RouterListener {
    final List<String> seen = new CopyOnWriteArrayList<>();

    @Override
    public void onPluginFailure(String plugin, Throwable error) {
      StringWriter trace = new StringWriter();
      error.printStackTrace(new PrintWriter(trace));
      seen.add(plugin + ": " + trace.toString().lines().limit(8).collect(Collectors.joining("\n")));
    }
  }

  private record Remove(String replicaId) {}

  private record Advance(long millis) {}

  private static void play(Router router, ManualTicker ticker, Object step, int n, List<Routed> routed) {
    if (step instanceof RequestInput in) {
      Request request = builtOrNull(() -> in.numbered(n).build());
      if (request != null) {
        RoutingDecision d = routeOrClearError(router, request);
        if (d != null && d.isRouted()) {
          routed.add(new Routed(request, d));
        }
      }
    } else if (step instanceof SnapshotInput in) {
      ReplicaSnapshot s = builtOrNull(in::build);
      if (s != null) {
        value(() -> router.onSnapshot(s), "onSnapshot", s);
      }
    } else if (step instanceof KvEventInput in) {
      KvEvent e = builtOrNull(in::build);
      if (e != null) {
        value(() -> router.onKvEvent(e), "onKvEvent", e);
      }
    } else if (step instanceof OutcomeInput in && !routed.isEmpty()) {
      Routed r = routed.get(in.route() % routed.size());
      Outcome o = builtOrNull(() -> in.build(r.request(), r.decision()));
      if (o != null) {
        value(() -> router.onOutcome(o), "onOutcome", o);
      }
    } else if (step instanceof Remove remove) {
      value(() -> router.removeReplica(remove.replicaId()), "removeReplica",
          AbsurdInputs.brief(remove.replicaId()));
    } else if (step instanceof Advance advance) {
      ticker.advanceMillis(advance.millis());
    }
  }

  /** route() documents IllegalArgumentException (an attempt already in flight, another block size). */
  private static RoutingDecision routeOrClearError(Router router, Request request) {
    try {
      return router.route(request);
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).as("route(%s) threw %s", request, e).matches(CLEAR);
      return null;
    } catch (RuntimeException | Error e) {
      throw new AssertionError("route(" + request + ") threw " + e, e);
    }
  }

  /** A call documented to answer with a value: any exception is a failure. */
  private static <T> T value(Callable<T> call, String name, Object argument) {
    try {
      return call.call();
    } catch (Exception | Error e) {
      throw new AssertionError(name + "(" + argument + ") threw " + e, e);
    }
  }

  private static void assertSane(Router router, String when) {
    List<ReplicaStatus> replicas = router.replicas();
    RouterStats s = router.stats();
    assertThat(List.of(s.routed(), s.inFlight(), s.expired(), s.orphaned(), s.indexEntries(),
        s.indexBlocks(), s.indexBytes(), s.droppedIndexHints(), s.pluginFailures()))
        .as("counters %s: %s", when, s).allMatch(v -> v >= 0);
    s.rejectedByReason().values().forEach(v -> assertThat(v).as("rejections %s", when).isNotNegative());
    s.outcomesByResult().values().forEach(v -> assertThat(v).as("outcomes %s", when).isNotNegative());
    assertThat(s.routed()).as("routed = inFlight + applied + expired + orphaned %s", when)
        .isEqualTo(s.inFlight() + s.outcomesApplied() + s.expired() + s.orphaned());
    assertThat(s.indexBytes()).as("index bytes %s", when).isLessThanOrEqualTo(s.indexBudgetBytes());
    for (ReplicaStatus r : replicas) {
      String what = r.replicaId() + " " + when;
      assertThat(r.inFlightRequests()).as("inFlightRequests of %s", what).isNotNegative();
      assertThat(r.inFlightTokens()).as("inFlightTokens of %s", what).isNotNegative();
      assertThat(r.indexEntries()).as("indexEntries of %s", what).isNotNegative();
      assertThat(r.estimatedQueueMillis()).as("estimatedQueueMillis of %s", what)
          .isNotNaN().isNotNegative(); // +Infinity is a fair estimate for a replica reporting no speed
      assertThat(r.reportAgeMillis()).as("reportAgeMillis of %s", what)
          .isGreaterThanOrEqualTo(-1).isFinite();
      assertThat(r.cacheHitReliability()).as("cacheHitReliability of %s", what).isBetween(0.0, 1.0);
      assertThat(r.queueFactor()).as("queueFactor of %s", what).isPositive().isFinite();
    }
  }

  private static void buildsOrFailsClearly(Callable<?> build) {
    Statistics.collect(builtOrNull(build) != null ? "builds" : "fails clearly");
    Statistics.coverage(c -> {
      c.check("builds").count(k -> k > 0);
      c.check("fails clearly").count(k -> k > 0);
    });
  }

  /** The built value, or null when building failed with a clear error; anything else fails. */
  private static <T> T builtOrNull(Callable<T> build) {
    try {
      return build.call();
    } catch (IllegalArgumentException | NullPointerException | IllegalStateException e) {
      assertThat(e.getMessage()).as("%s", e).matches(CLEAR);
      return null;
    } catch (Exception | Error e) {
      return fail("building threw " + e, e);
    }
  }
}
