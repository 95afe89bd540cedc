package io.github.kvroute.sim;

import static io.github.kvroute.sim.SimFixtures.runRecorded;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The failure scenarios: in the named suite, each fault happens, and the books still balance. */
class FailureScenariosTest {
  private static final Pattern FAULTS = Pattern.compile("note: faults: (\\d+) reports lost in"
      + " blackouts, (\\d+) KV event batches lost \\((\\d+) gaps seen by routers, (\\d+) events"
      + " dropped as out of order\\), (\\d+) stale reports and events replayed");

  static Stream<Arguments> runs() {
    return Scenarios.failures().stream().flatMap(s -> Stream.of("hybrid-cost", "least-request")
        .map(p -> Arguments.of(s.name(), p)));
  }

  @Test
  void theFailureScenariosAreNamedButNotInTheStandardSuite() {
    assertThat(Scenarios.failures()).extracting(Scenario::name).containsExactly("replica-crash",
        "stale-epoch-replay", "telemetry-blackout", "event-gap", "slow-replica", "overload-3x");
    assertThat(Scenarios.all()).extracting(Scenario::name)
        .doesNotContainAnyElementsOf(Scenarios.failures().stream().map(Scenario::name).toList());
    for (Scenario s : Scenarios.failures()) {
      assertThat(Scenarios.named(s.name())).containsSame(s);
    }
  }

  @ParameterizedTest(name = "{0} with {1}")
  @MethodSource("runs")
  void everyRequestEndsWithAReason_andNothingGoesToAReplicaKnownDead(String name, String policy) {
    SimulationResult r = Simulator.create().run(Scenarios.named(name).orElseThrow(), policy);

    assertThat(r.completed() + r.rejected() + r.failed()).isEqualTo(r.offered());
    assertThat(r.failedByReason().keySet()).allMatch(reason -> !reason.isBlank());
    assertThat(r.rejectedByReason().keySet()).allMatch(reason -> !reason.isBlank());
    assertThat(r.failedByReason().values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(r.failed());
    assertThat(r.checks()).noneMatch(l -> l.startsWith("FAILED"))
        .contains("ok: no attempt routed to a replica its router had been told was dead or not"
            + " ready: 0");
  }

  @Test
  void replicaCrash_failsItsWork_thenTheReplicaServesAgainAfterItsColdStart() {
    Scenario s = Scenarios.named("replica-crash").orElseThrow().toBuilder().retries(false).build();
    var run = runRecorded(s, "hybrid-cost");
    Map<String, Double> arrival = arrivalMillis(s);

    assertThat(run.result().failedByReason()).containsKey("replica crashed");
    // nothing arriving after the routers knew of the crash and before the cold start completed there
    assertThat(run.records().values()).noneMatch(rec -> rec.end() == RequestState.End.COMPLETED
        && rec.replica().equals("replica-0") && arrival.get(rec.id()) > 20_500
        && arrival.get(rec.id()) < 50_000);
    assertThat(run.records().values()).anyMatch(rec -> rec.end() == RequestState.End.COMPLETED
        && rec.replica().equals("replica-0") && arrival.get(rec.id()) > 50_500);
  }

  /**
   * Under KV events a crash's backlog used to collapse the cache-aware policies for good (slo
   * attainment 0.29 for hybrid-cost and cache-aware, seed 1): routers that trusted events alone were
   * blind to a prefix until its prefill ran, seconds later under the backlog, and spread every
   * tenant over every replica. Speculative inserts keep them within the objective in most runs, as
   * under stock telemetry; three survivors taking a fourth's tenants is a tight fit (each keeps about
   * two warm), and some seeds still thrash. SLO attainment at seeds 1-5: hybrid-cost 0.78 / 0.97 /
   * 1.00 / 0.74 / 0.99 (before the backlog count, exact-mode trimming and the admission-rate floor:
   * 1.00 / 1.00 / 1.00 / 0.30 / 0.28), cache-aware 1.00 / 1.00 / 1.00 / 0.92 / 1.00; weighted-score, which this does not assert,
   * 0.53 / 0.59 / 0.30 / 0.72 / 0.41 (before: 1.00 / 0.30 / 0.29 / 0.34 / 0.40). Over five seeds, so
   * that one seed's luck neither passes nor fails it.
   */
  @ParameterizedTest
  @ValueSource(strings = {"hybrid-cost", "cache-aware"})
  void replicaCrash_underKvEvents_theCacheAwarePoliciesMostlyRecover(String policy) {
    double sum = 0;
    int recovered = 0;
    for (long seed = 1; seed <= 5; seed++) {
      Scenario s = Scenarios.named("replica-crash").orElseThrow().toBuilder()
          .telemetry(TelemetryProfile.VLLM_KV_EVENTS).seed(seed).build();
      SimulationResult r = Simulator.create().run(s, policy);
      sum += r.sloAttainment();
      recovered += r.sloAttainment() > 0.9 && r.prefixHitRatio() > 0.9 ? 1 : 0;
    }

    assertThat(sum / 5).as("mean SLO attainment").isGreaterThan(0.8);
    assertThat(recovered).as("seeds within the objective, with their prefixes kept")
        .isGreaterThanOrEqualTo(3);
  }

  @Test
  void staleEpochReplay_theDeadProcessesMessagesArriveAndAreIgnored() {
    SimulationResult r =
        Simulator.create().run(Scenarios.named("stale-epoch-replay").orElseThrow(), "hybrid-cost");

    long[] f = faults(r);
    assertThat(f[4]).as("replayed").isGreaterThan(1);
    assertThat(r.checks()).anyMatch(l -> l.matches("note: telemetry .* [1-9][0-9]* ignored by"
        + " routers.*"));
  }

  @Test
  void telemetryBlackout_losesTenSecondsOfReportsOfTwoReplicas() {
    SimulationResult r =
        Simulator.create().run(Scenarios.named("telemetry-blackout").orElseThrow(), "hybrid-cost");

    // every 250 ms for 10 s on two replicas: 40 reports each, give or take the phase
    assertThat(faults(r)[0]).isBetween(78L, 82L);
  }

  @Test
  void eventGap_lostBatchesAreSeenAsGaps() {
    SimulationResult r =
        Simulator.create().run(Scenarios.named("event-gap").orElseThrow(), "hybrid-cost");

    long[] f = faults(r);
    assertThat(f[1]).as("lost batches").isPositive();
    assertThat(f[2]).as("gaps seen: at least one per lost batch, by the one router")
        .isGreaterThanOrEqualTo(1).isLessThanOrEqualTo(f[1]);
    assertThat(f[3]).as("nothing arrives twice").isZero();
  }

  @Test
  void eventGap_withoutLossTheRoutersSeeNoGap() {
    Scenario s = Scenarios.named("event-gap").orElseThrow().toBuilder().faults(Faults.NONE).build();

    assertThat(faults(Simulator.create().run(s, "hybrid-cost"))).containsOnly(0L);
  }

  @Test
  void slowReplica_isFiveTimesSlower_andACostAwarePolicyGivesItLessWork() {
    Scenario s = Scenarios.named("slow-replica").orElseThrow();
    assertThat(s.faults().slowReplica()).isZero();
    assertThat(s.replicaModel().slowedBy(5).prefillMillisPerToken())
        .isEqualTo(5 * s.replicaModel().prefillMillisPerToken());

    long[] tokens = Simulator.create().run(s, "hybrid-cost").tokensByReplica();

    long others = (tokens[1] + tokens[2] + tokens[3]) / 3;
    assertThat(tokens[0]).isLessThan(others);
  }

  @Test
  void overload3x_rejectsMostWithReasons() {
    SimulationResult r =
        Simulator.create().run(Scenarios.named("overload-3x").orElseThrow(), "hybrid-cost");

    assertThat(r.rejected()).isGreaterThan(r.offered() / 3);
    assertThat(r.rejectedByReason()).isNotEmpty();
  }

  @Test
  void faultsRejectBadValuesClearly() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Faults.NONE.withKvEventBatchLoss(1))
        .hasMessage("kvEventBatchLoss: 1.0 (expected: in [0, 1))");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Faults.NONE.withBlackout(0, 5, 5))
        .hasMessage("blackout: [5, 5) ms (expected: 0 <= from < to)");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Scenarios.named("multi-tenant")
        .orElseThrow().toBuilder().faults(Faults.NONE.withKvEventBatchLoss(0.1)).build())
        .hasMessage("faults.kvEventBatchLoss: 0.1 (expected: 0 without KV events)");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Scenarios.named("multi-tenant")
        .orElseThrow().toBuilder().faults(Faults.NONE.withSlowReplica(4, 2)).build())
        .hasMessage("faults: replica 4 (expected: < replicas = 4)");
  }

  /** The fault note's five numbers. */
  private static long[] faults(SimulationResult r) {
    String line = r.checks().stream().filter(l -> l.startsWith("note: faults:")).findFirst()
        .orElseThrow();
    Matcher m = FAULTS.matcher(line);
    assertThat(m.matches()).as(line).isTrue();
    long[] out = new long[5];
    for (int i = 0; i < 5; i++) {
      out[i] = Long.parseLong(m.group(i + 1));
    }
    return out;
  }

  private static Map<String, Double> arrivalMillis(Scenario s) {
    Map<String, Double> out = new HashMap<>();
    s.workload().requests(s.seed(), s.requests(), s.rateScale(), s.blockSizeTokens())
        .forEachRemaining(req -> out.put(req.id(), req.arrivalNanos() / 1e6));
    return out;
  }

}
