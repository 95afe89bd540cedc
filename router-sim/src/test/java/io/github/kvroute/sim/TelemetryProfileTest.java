package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each telemetry profile reports exactly its engine's fields: a field the engine does not export (an
 * instrumented field under vllm, say) fails the test, and so does a missing one.
 */
class TelemetryProfileTest {
  private static final Set<String> VLLM = Set.of("observedAtNanos", "waitingRequests",
      "runningRequests", "kvBlocksUsed", "kvBlocksTotal", "kvBlockSizeTokens", "kvUtilization",
      "kvCapacityTokens", "promptTokensTotal", "generationTokensTotal", "prefixCacheQueriesTotal",
      "prefixCacheHitsTotal", "preemptionsTotal", "timeToFirstToken", "queueTime", "prefillTime");
  private static final Set<String> SGLANG = Set.of("observedAtNanos", "waitingRequests",
      "runningRequests", "kvBlocksUsed", "kvBlocksTotal", "kvBlockSizeTokens", "kvUtilization",
      "kvCapacityTokens", "promptTokensTotal", "generationTokensTotal", "cacheHitRate",
      "generationTokensPerSecond", "timeToFirstToken");
  private static final Set<String> INSTRUMENTED = Set.of("observedAtNanos", "waitingRequests",
      "runningRequests", "queuedPrefillTokens", "outstandingDecodeTokens", "kvBlocksUsed",
      "kvBlocksTotal", "kvBlockSizeTokens", "kvUtilization", "kvCapacityTokens",
      "prefillTokensPerSecond", "decodeStepMillis", "requestsReceivedTotal");

  private static Set<String> expected(TelemetryProfile p) {
    return switch (p) {
      case VLLM, VLLM_KV_EVENTS -> VLLM;
      case SGLANG -> SGLANG;
      case INSTRUMENTED -> INSTRUMENTED;
    };
  }

  /** Routes round the candidates, recording every report it is shown and every outcome. */
  static final class Recorder implements RoutingPolicy {
    final List<ReplicaSnapshot> reports = new ArrayList<>();
    final List<Outcome> outcomes = new ArrayList<>();
    private int next;

    @Override
    public String name() {
      return "recorder";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      List<? extends CandidateView> all = context.candidates();
      if (all.isEmpty()) {
        return context.noCandidates();
      }
      all.forEach(c -> reports.add(c.snapshot()));
      return RoutingDecision.routed(all.get(next++ % all.size()), CostBreakdown.empty());
    }

    @Override
    public void onOutcome(Outcome outcome) {
      outcomes.add(outcome);
    }
  }

  /** The names of the optional accessors that hold a value in {@code s}. */
  static Set<String> presentFields(ReplicaSnapshot s) throws ReflectiveOperationException {
    Set<String> present = new TreeSet<>();
    for (Method m : ReplicaSnapshot.class.getDeclaredMethods()) {
      if (m.getParameterCount() != 0 || !java.lang.reflect.Modifier.isPublic(m.getModifiers())
          || java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      Object v = m.invoke(s);
      boolean set = v instanceof Optional<?> a ? a.isPresent()
          : v instanceof OptionalInt b ? b.isPresent()
          : v instanceof OptionalLong c ? c.isPresent()
          : v instanceof OptionalDouble d && d.isPresent();
      if (set) {
        present.add(m.getName());
      }
    }
    return present;
  }

  private static Recorder run(Scenario s) {
    Recorder recorder = new Recorder();
    new Simulation(s, Simulator.instances("recorder", () -> recorder), ProgressListener.NONE, false)
        .run();
    return recorder;
  }

  private static ScenarioBuilder multiTenant(TelemetryProfile p) {
    return Scenarios.named("multi-tenant").orElseThrow().toBuilder().requests(400).replicas(2)
        .telemetryIntervalMillis(100).telemetry(p);
  }

  @ParameterizedTest
  @EnumSource(TelemetryProfile.class)
  void eachReportCarriesThatEnginesFieldsAndNothingElse(TelemetryProfile p) throws Exception {
    Recorder r = run(multiTenant(p).build());

    Set<String> seen = new TreeSet<>();
    for (ReplicaSnapshot s : r.reports) {
      Set<String> fields = presentFields(s);
      assertThat(expected(p)).as("fields of %s", s).containsAll(fields);
      seen.addAll(fields);
    }
    assertThat(seen).as("every field of %s reported at some point", p).isEqualTo(expected(p));
  }

  @Test
  void instrumentedDecodeStepsIncludeTheKvReadsOfTheContextHeld() {
    Recorder r = run(multiTenant(TelemetryProfile.INSTRUMENTED).build());
    ReplicaModel m = EnginePreset.defaultPreset().replicaModel();

    // every running sequence of multi-tenant holds a ~3k-token prompt: the step reads its KV
    List<ReplicaSnapshot> busy = r.reports.stream()
        .filter(s -> s.runningRequests().orElse(0) > 0).toList();
    assertThat(busy).isNotEmpty().allSatisfy(s -> {
      int n = s.runningRequests().getAsInt();
      assertThat(s.decodeStepMillis().getAsDouble())
          .isGreaterThan(m.decodeStepMillis(n, 2_600L * n))
          .isLessThan(m.decodeStepMillis(n, 3_200L * n));
    });
  }

  @Test
  void vllmCountersGrowWithTheTrafficTheyCount() {
    Recorder r = run(multiTenant(TelemetryProfile.VLLM).build());

    ReplicaSnapshot last = r.reports.get(r.reports.size() - 1);
    assertThat(last.prefixCacheHitsTotal().getAsLong()).as("tenants' prompts were reused")
        .isPositive().isLessThan(last.prefixCacheQueriesTotal().getAsLong());
    assertThat(last.promptTokensTotal().getAsLong()).isPositive();
    assertThat(last.timeToFirstToken().orElseThrow().count())
        .isGreaterThanOrEqualTo(last.prefillTime().orElseThrow().count()).isPositive();
    assertThat(last.kvBlockSizeTokens()).hasValue(16);
  }

  @ParameterizedTest
  @EnumSource(TelemetryProfile.class)
  void onlyAnInstrumentedEngineTellsTheQueueTimeInOutcomes(TelemetryProfile p) {
    Recorder r = run(multiTenant(p).build());

    assertThat(r.outcomes).isNotEmpty();
    assertThat(r.outcomes).filteredOn(o -> o.status().isSuccess())
        .allSatisfy(o -> {
          assertThat(o.queueTime().isPresent()).isEqualTo(p == TelemetryProfile.INSTRUMENTED);
          assertThat(o.ttft()).isPresent();
          assertThat(o.cachedTokens()).isPresent();
        });
  }

  private static long kvEventsDelivered(SimulationResult r) {
    Matcher m = Pattern.compile("(\\d+) KV events delivered").matcher(String.join("\n", r.checks()));
    assertThat(m.find()).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static long firstTokens(SimulationResult r) {
    Matcher m = Pattern.compile("(\\d+) first tokens reported").matcher(String.join("\n", r.checks()));
    assertThat(m.find()).isTrue();
    return Long.parseLong(m.group(1));
  }

  @Test
  void theProfileDecidesWhetherKvEventsFlow() {
    Simulator sim = Simulator.create();

    assertThat(kvEventsDelivered(sim.run(multiTenant(TelemetryProfile.VLLM).build(), "round-robin")))
        .isZero();
    assertThat(kvEventsDelivered(sim.run(multiTenant(TelemetryProfile.SGLANG).build(), "round-robin")))
        .isZero();
    assertThat(kvEventsDelivered(
        sim.run(multiTenant(TelemetryProfile.VLLM_KV_EVENTS).build(), "round-robin"))).isPositive();
    assertThat(kvEventsDelivered(
        sim.run(multiTenant(TelemetryProfile.INSTRUMENTED).build(), "round-robin"))).isZero();
    assertThat(kvEventsDelivered(sim.run(
        multiTenant(TelemetryProfile.INSTRUMENTED).kvEvents(true).build(), "round-robin")))
        .isPositive();
    assertThatIllegalArgumentException()
        .isThrownBy(() -> multiTenant(TelemetryProfile.VLLM).kvEvents(true).build())
        .withMessageStartingWith("kvEvents: true (expected: false under telemetry vllm");
  }

  @Test
  void everyCompletedAttemptReportsItsFirstToken() {
    SimulationResult r = Simulator.create().run(multiTenant(TelemetryProfile.VLLM).build(),
        "hybrid-cost");

    assertThat(firstTokens(r)).isGreaterThanOrEqualTo(r.completed()).isPositive();
  }

  @Test
  void profilesAreNamedAsOnTheCommandLine() {
    assertThat(TelemetryProfile.named("vllm-kv-events")).contains(TelemetryProfile.VLLM_KV_EVENTS);
    assertThat(TelemetryProfile.named("sglang")).contains(TelemetryProfile.SGLANG);
    assertThat(TelemetryProfile.named("VLLM")).isEmpty();
    assertThat(SimFixtures.oneReplica(List.of(SimFixtures.unique("a", 0, 100, 1, 1))).build()
        .telemetry()).as("the default").isEqualTo(TelemetryProfile.VLLM);
  }
}
