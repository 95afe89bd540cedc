package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static io.github.kvroute.core.TestData.MODEL;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static io.github.kvroute.core.TestData.storedPrefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.Scorer;
import java.time.Duration;
import java.util.Set;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The worked examples of docs/cost-model.md ("Worked examples"), each reproduced through the real
 * {@link Router}.
 */
class GoldenVectorsTest {
  private static final Offset<Double> EXACT = within(1e-9);

  /** The placement example's model: 0.06 ms per missing token and no fixed prefill overhead. */
  private static final CostModel PLACEMENT =
      CostModel.newBuilder().prefillOverheadMillis(0).prefillMillisPerToken(0.06).build();
  /** 4,000 tokens = 250 blocks of 16. */
  private static final PromptKey DOC = prompt(4_000, 7);

  private final ManualTicker ticker = new ManualTicker();

  private Router router(RoutingPolicy policy, CostModel model, AdmissionController admission) {
    return Router.newBuilder().policy(policy).costModel(model).admission(admission)
        .ticker(ticker).seed(42).build();
  }

  /**
   * R0 holds the whole prompt, R1 nothing, R2 its first 2,000 tokens; queues as given. Replicas other
   * than R1 hold {@code adapters}.
   */
  private Router placement(RoutingPolicy policy, AdmissionController admission, double q0, double q1,
      double q2, Set<String> adapters, PromptKey prompt) {
    Router router = router(policy, PLACEMENT, admission);
    router.onSnapshot(ready("R0").estimatedQueueDelayMillis(q0).residentAdapters(adapters).build());
    router.onSnapshot(ready("R1").estimatedQueueDelayMillis(q1).build());
    router.onSnapshot(ready("R2").estimatedQueueDelayMillis(q2).residentAdapters(adapters).build());
    router.onKvEvent(storedPrefix("R0", 0, prompt, prompt.blockCount()));
    router.onKvEvent(storedPrefix("R2", 0, prompt, 125));
    return router;
  }

  private Router placement(RoutingPolicy policy, double q0, double q1, double q2) {
    return placement(policy, AdmissionController.admitAll(), q0, q1, q2, Set.of(), DOC);
  }

  // ------------------------------------------------------------------------ round-robin example

  @Test
  void roundRobinExample_idleReplicaCosts20Plus0035Times1000Is55Ms() {
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = router(policy, CostModel.defaults(), AdmissionController.admitAll());
    router.onSnapshot(ready("idle").waitingRequests(0).queuedPrefillTokens(0).build());

    RoutingDecision d = router.route(request("rr-1", prompt(1_000, 3)).build());

    CostBreakdown idle = policy.estimates.get("idle");
    assertThat(idle.millis("queue").getAsDouble()).isEqualTo(0.0);
    assertThat(idle.millis("prefill").getAsDouble()).isCloseTo(20 + 0.035 * 1_000, EXACT)
        .isCloseTo(55.0, EXACT);
    assertThat(idle.totalMillis()).isCloseTo(55.0, EXACT);
    assertThat(d.replicaId()).isEqualTo("idle");
    assertThat(d.cost().totalMillis()).isCloseTo(55.0, EXACT);
  }

  @Test
  void roundRobinExample_queueBehindOneWaiting40000TokenPromptIs1420Ms() {
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = router(policy, CostModel.defaults(), AdmissionController.admitAll());
    router.onSnapshot(ready("busy").waitingRequests(1).queuedPrefillTokens(40_000).build());
    router.onSnapshot(ready("idle").waitingRequests(0).queuedPrefillTokens(0).build());

    RoutingDecision d = router.route(request("rr-1", prompt(1_000, 3)).build());

    CostBreakdown busy = policy.estimates.get("busy");
    assertThat(busy.millis("queue").getAsDouble()).isCloseTo(20 + 0.035 * 40_000, EXACT)
        .isCloseTo(1_420.0, EXACT);
    assertThat(busy.totalMillis()).isCloseTo(1_420.0 + 55.0, EXACT);
    assertThat(d.replicaId()).isEqualTo("idle");
  }

  // -------------------------------------------------------------------------------- placement

  @Test
  void placement_partialLocalityWins_R0Is300_R1Is240_R2Is220() {
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = placement(policy, 300, 0, 100);

    RoutingDecision d = router.route(request("p-1", DOC).build());

    assertThat(policy.estimates.get("R0").totalMillis()).isCloseTo(300 + 0.0, EXACT);
    assertThat(policy.estimates.get("R0").millis("prefill").getAsDouble()).isCloseTo(0.0, EXACT);
    assertThat(policy.estimates.get("R1").totalMillis()).isCloseTo(0 + 4_000 * 0.06, EXACT)
        .isCloseTo(240.0, EXACT);
    assertThat(policy.estimates.get("R2").totalMillis()).isCloseTo(100 + 2_000 * 0.06, EXACT)
        .isCloseTo(220.0, EXACT);
    assertThat(policy.views.get("R0").matchedTokens()).isEqualTo(4_000);
    assertThat(policy.views.get("R1").matchedTokens()).isZero();
    assertThat(policy.views.get("R2").matchedTokens()).isEqualTo(2_000);
    assertThat(d.replicaId()).isEqualTo("R2");
    assertThat(d.matchedTokens()).isEqualTo(2_000);
    assertThat(d.cost().totalMillis()).isCloseTo(220.0, EXACT);
  }

  @Test
  void placement_R2QueueAt150_R1Wins_240Below270() {
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = placement(policy, 300, 0, 150);

    RoutingDecision d = router.route(request("p-1", DOC).build());

    assertThat(policy.estimates.get("R2").totalMillis()).isCloseTo(270.0, EXACT);
    assertThat(policy.estimates.get("R1").totalMillis()).isCloseTo(240.0, EXACT);
    assertThat(d.replicaId()).isEqualTo("R1");
  }

  /** R0 (queue + 0) beats R2 (220) exactly when its queue is under 220 ms. */
  @ParameterizedTest(name = "R0 queue {0} ms -> {1}")
  @CsvSource({"219, R0", "221, R2"})
  void placement_R0WinsOnlyWhenItsQueueIsUnder220(double r0Queue, String winner) {
    Router router = placement(new LeastEstimatePolicy(), r0Queue, 0, 100);

    RoutingDecision d = router.route(request("p-1", DOC).build());

    assertThat(d.replicaId()).isEqualTo(winner);
    assertThat(d.cost().totalMillis()).isCloseTo(Math.min(r0Queue, 220.0), EXACT);
  }

  @Test
  void adapter_R1MustLoadTheAdapterFor800Ms_costs1040_andRanksLast() {
    CacheNamespace ns = CacheNamespace.of(MODEL, null, "sql-lora");
    PromptKey doc = PromptKey.ofTokens(TestData.tokens(4_000, 7), ns);
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = placement(policy, AdmissionController.admitAll(), 300, 0, 100,
        Set.of("sql-lora"), doc);

    RoutingDecision d = router.route(request("p-1", doc).adapter("sql-lora").build());

    CostBreakdown r1 = policy.estimates.get("R1");
    assertThat(r1.millis("transfer").getAsDouble()).isCloseTo(800.0, EXACT);
    assertThat(r1.totalMillis()).isCloseTo(0 + 240 + 800.0, EXACT).isCloseTo(1_040.0, EXACT);
    assertThat(policy.estimates.get("R0").millis("transfer").getAsDouble()).isZero();
    assertThat(policy.estimates.get("R2").millis("transfer").getAsDouble()).isZero();
    assertThat(policy.estimates.values()).allSatisfy(
        c -> assertThat(c.totalMillis()).isLessThanOrEqualTo(r1.totalMillis()));
    assertThat(policy.estimates.get("R0").totalMillis()).isLessThan(r1.totalMillis());
    assertThat(d.replicaId()).isEqualTo("R2");
  }

  // -------------------------------------------------------------------------------- admission

  /** 600 ms TTFT SLO with 350 ms spent upstream leaves 250 ms: R1 (margin 10), R2 (margin 30). */
  @ParameterizedTest(name = "proposing {0} at {1} ms -> admitted {2}")
  @CsvSource({"R0, 300, false", "R1, 240, true", "R2, 220, true"})
  void admission_350MsSpentOf600_budget250_admitsR1AndR2_rejectsR0(
      String proposed, double cost, boolean admitted) {
    Router router = placement(new ForcedPolicy(proposed), Admission.standard(), 300, 0, 100,
        Set.of(), DOC);
    Request r = request("a-1", DOC).ttftBudget(Duration.ofMillis(600))
        .upstreamElapsed(Duration.ofMillis(350)).build();
    assertThat(r.remainingBudgetMillis()).hasValue(250);

    RoutingDecision d = router.route(r);

    assertThat(d.isRouted()).isEqualTo(admitted);
    if (admitted) {
      assertThat(d.replicaId()).isEqualTo(proposed);
      assertThat(d.cost().totalMillis()).isCloseTo(cost, EXACT);
      assertThat(250 - d.cost().totalMillis()).isCloseTo(proposed.equals("R1") ? 10 : 30, EXACT);
    } else {
      assertThat(d.reason()).isEqualTo(RejectReason.DEADLINE);
      assertThat(d.detail()).contains("R0", "250");
    }
  }

  @Test
  void admission_400MsSpentOf600_budget200_rejectsWithRetryAfterFromR2sQueue() {
    Router router = placement(new LeastEstimatePolicy(), Admission.standard(), 300, 0, 100,
        Set.of(), DOC);
    Request r = request("a-1", DOC).ttftBudget(Duration.ofMillis(600))
        .upstreamElapsed(Duration.ofMillis(400)).build();

    RoutingDecision d = router.route(r);

    assertThat(d.isRouted()).isFalse();
    assertThat(d.reason()).isEqualTo(RejectReason.DEADLINE);
    // R2 is 220 - 200 = 20 ms over and has 100 ms of queue to drain; R1 cannot fit by waiting.
    assertThat(d.retryAfter()).contains(Duration.ofMillis(20));
    assertThat(router.stats().rejectedByReason()).containsEntry(RejectReason.DEADLINE, 1L);
    assertThat(router.stats().inFlight()).isZero();
  }

  // -------------------------------------------------------------------------------- KV transfer

  @Test
  void kvTransfer_a6000TokenMoveAt320KibPerTokenTakesAbout95Ms() {
    CostModel defaults = CostModel.defaults();

    assertThat(defaults.kvBytesPerToken()).isEqualTo(320L * 1024);
    assertThat(defaults.kvTransferMillis(6_000)).isCloseTo(95.0, EXACT);
    assertThat(defaults.kvTransferMillis(3_000)).isCloseTo(47.5, EXACT);
  }

  // ---------------------------------------------------------- a partial hit against a cold replica

  /** A holds 3,600 of 4,000 tokens: 20 ms of prefill after its queue; B computes all: 200 ms. */
  @ParameterizedTest(name = "A's queue {0} ms -> {1}")
  @CsvSource({"40, A, 60", "600, B, 200"})
  void partialHit_AWithItsQueueAgainstBFromScratch(double aQueue, String winner, double cost) {
    CostModel model =
        CostModel.newBuilder().prefillOverheadMillis(0).prefillMillisPerToken(0.05).build();
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = router(policy, model, AdmissionController.admitAll());
    router.onSnapshot(queued("A", aQueue));
    router.onSnapshot(queued("B", 0));
    router.onKvEvent(storedPrefix("A", 0, DOC, 3_600 / 16));

    RoutingDecision d = router.route(request("s-1", DOC).build());

    assertThat(policy.estimates.get("A").millis("prefill").getAsDouble()).isCloseTo(20.0, EXACT);
    assertThat(policy.estimates.get("B").millis("prefill").getAsDouble()).isCloseTo(200.0, EXACT);
    assertThat(d.replicaId()).isEqualTo(winner);
    assertThat(d.cost().totalMillis()).isCloseTo(cost, EXACT);
  }

  // --------------------------------------------------------------------------------- staleness

  @Test
  void staleness_40RequestsPerSecondOver10Replicas_250MsReports_isOneRequestOfError() {
    double perReplica = 40.0 / 10;

    assertThat(StalenessRiskTerm.expectedUnseenRequests(perReplica, 250)).isCloseTo(1.0, EXACT);
  }

  @Test
  void staleness_aTwoTimesBurstDoublesTheError() {
    assertThat(StalenessRiskTerm.expectedUnseenRequests(2 * 40.0 / 10, 250)).isCloseTo(2.0, EXACT);
  }

  @Test
  void staleness_riskCostIsUnseenTimesMeanCostTimesFactor_busyAboveIdle_stalePlusPenalty() {
    CostModel model = CostModel.newBuilder().riskFactors(1.0, 0.4).stalePenaltyMillis(700).build();
    Scorer risk = CostTerms.risk(model);
    Request r = request("st-1", prompt(1_000, 1)).build();
    CandidateView busy = CandidateView.newBuilder().replicaId("busy").unseenArrivalsPerSecond(4)
        .snapshotAgeMillis(250).meanRequestCostMillis(55).estimatedQueueMillis(120).build();
    CandidateView idle = CandidateView.newBuilder().replicaId("idle").unseenArrivalsPerSecond(4)
        .snapshotAgeMillis(250).meanRequestCostMillis(55).estimatedQueueMillis(0).build();
    CandidateView stale = CandidateView.newBuilder().replicaId("stale").unseenArrivalsPerSecond(4)
        .snapshotAgeMillis(250).meanRequestCostMillis(55).estimatedQueueMillis(0)
        .telemetryStale(true).build();

    assertThat(risk.name()).isEqualTo("risk");
    assertThat(risk.costMillis(r, busy)).isCloseTo(1.0 * 55 * 1.0, EXACT);
    assertThat(risk.costMillis(r, idle)).isCloseTo(1.0 * 55 * 0.4, EXACT);
    assertThat(risk.costMillis(r, busy)).isGreaterThan(risk.costMillis(r, idle));
    assertThat(risk.costMillis(r, stale)).isCloseTo(1.0 * 55 * 0.4 + 700, EXACT);
  }

  @Test
  void staleness_freshReportWithNoUnseenTrafficCostsNothing() {
    Scorer risk = CostTerms.risk(CostModel.defaults());
    CandidateView fresh = CandidateView.newBuilder().snapshotAgeMillis(0)
        .unseenArrivalsPerSecond(40).meanRequestCostMillis(55).estimatedQueueMillis(100).build();
    CandidateView alone = CandidateView.newBuilder().snapshotAgeMillis(250)
        .unseenArrivalsPerSecond(0).meanRequestCostMillis(55).estimatedQueueMillis(100).build();
    Request r = request("st-1", prompt(1_000, 1)).build();

    assertThat(risk.costMillis(r, fresh)).isZero();
    assertThat(risk.costMillis(r, alone)).isZero();
  }

  @Test
  void staleness_throughTheRouter_aReportOlderThanTheLimitIsMarkedStaleAndPenalised() {
    CostModel model = CostModel.newBuilder().staleAfterMillis(2_000).stalePenaltyMillis(1_000)
        .build();
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = router(policy, model, AdmissionController.admitAll());
    router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("old").model(MODEL)
        .observedAtNanos(0).estimatedQueueDelayMillis(0).build());
    ticker.advanceMillis(2_500);
    router.onSnapshot(queued("new", 0));

    router.route(request("st-1", prompt(1_000, 1)).build());

    assertThat(policy.views.get("old").snapshotAgeMillis()).isCloseTo(2_500.0, EXACT);
    assertThat(policy.views.get("old").telemetryStale()).isTrue();
    assertThat(policy.views.get("new").telemetryStale()).isFalse();
    assertThat(policy.estimates.get("old").millis("risk").getAsDouble()).isCloseTo(1_000.0, EXACT);
    assertThat(policy.estimates.get("new").millis("risk").getAsDouble()).isZero();
  }
}
