package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static io.github.kvroute.core.TestData.storedPrefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What outcomes teach the router: cache reliability, prefill calibration, and index rollback. */
class FeedbackTest {
  private static final PromptKey DOC = prompt(4_000, 7);

  private final ManualTicker ticker = new ManualTicker();
  private final RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
  private final Router router = Router.newBuilder().policy(policy).ticker(ticker).seed(5).build();

  private int probes;

  /** The view the router prepares for {@code replicaId} when asked to route {@code prompt}. */
  private CandidateView viewOf(String replicaId, PromptKey prompt) {
    router.route(request("probe-" + ++probes, prompt).build());
    return policy.views.get(replicaId);
  }

  // ------------------------------------------------------------------------ cache reliability

  @Test
  void fewerCachedTokensThanPredictedLowersCacheHitReliability() {
    router.onSnapshot(queued("r0", 0));
    router.onKvEvent(storedPrefix("r0", 0, DOC, DOC.blockCount()));
    Request r = request("q-1", DOC).build();
    RoutingDecision d = router.route(r);
    assertThat(d.matchedTokens()).isEqualTo(4_000);
    assertThat(policy.views.get("r0").cacheHitReliability()).isEqualTo(1.0);

    router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).cachedTokens(1_000).build());

    CandidateView after = viewOf("r0", DOC);
    assertThat(after.cacheHitReliability()).isLessThan(1.0).isGreaterThanOrEqualTo(0.25);
    double expectedPrefill = after.prefillOverheadMillis()
        + (4_000 - after.matchedTokens() * after.cacheHitReliability()) * after.prefillMillisPerToken();
    assertThat(policy.estimates.get("r0").millis("prefill").getAsDouble())
        .isCloseTo(expectedPrefill, within(1e-9))
        .isGreaterThan(after.prefillOverheadMillis());
  }

  @Test
  void outcomesThatConfirmThePredictionKeepReliabilityAtOne() {
    router.onSnapshot(queued("r0", 0));
    router.onKvEvent(storedPrefix("r0", 0, DOC, DOC.blockCount()));
    Request r = request("q-1", DOC).build();
    RoutingDecision d = router.route(r);

    router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).cachedTokens(4_000).build());

    assertThat(viewOf("r0", DOC).cacheHitReliability()).isEqualTo(1.0);
  }

  @Test
  void reliabilityIsPerReplica() {
    router.onSnapshot(queued("r0", 0));
    router.onSnapshot(queued("r1", 10_000));
    router.onKvEvent(storedPrefix("r0", 0, DOC, DOC.blockCount()));
    Request r = request("q-1", DOC).build();
    RoutingDecision d = router.route(r);
    assertThat(d.replicaId()).isEqualTo("r0");

    router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).cachedTokens(0).build());

    viewOf("r0", DOC);
    assertThat(policy.views.get("r0").cacheHitReliability()).isLessThan(1.0);
    assertThat(policy.views.get("r1").cacheHitReliability()).isEqualTo(1.0);
  }

  // ------------------------------------------------------------------------------ calibration

  /** Prefill really costs 0.1 ms/token (20 ms overhead), not the default 0.035. */
  @Test
  void ttftAndQueueTimeCalibrateThePrefillRateAfterMinSamples() {
    router.onSnapshot(queued("r0", 0));
    double defaultRate = CostModel.defaults().prefillMillisPerToken();
    for (int i = 1; i <= Calibration.MIN_SAMPLES; i++) {
      assertThat(viewOf("r0", prompt(1_000, 1_000 + i)).prefillMillisPerToken())
          .as("after %d samples", i - 1).isEqualTo(defaultRate);
      Request r = request("c-" + i, prompt(1_000, i)).build();
      RoutingDecision d = router.route(r);
      assertThat(d.matchedTokens()).isZero();
      // 30 ms queued, then 20 + 1,000 x 0.1 = 120 ms of prefill
      Outcome o = outcome(r, d, OutcomeStatus.SUCCESS).cachedTokens(0)
          .queueTime(Duration.ofMillis(30)).ttft(Duration.ofMillis(150)).build();
      assertThat(router.onOutcome(o)).isEqualTo(UpdateResult.APPLIED);
    }

    CandidateView calibrated = viewOf("r0", prompt(1_000, 9_999));

    assertThat(calibrated.prefillMillisPerToken()).isCloseTo(0.1, within(1e-12));
    assertThat(policy.estimates.get("r0").millis("prefill").getAsDouble())
        .isCloseTo(20 + 1_000 * 0.1, within(1e-9));
  }

  @Test
  void outcomesWithoutTimingsDoNotCalibrate() {
    router.onSnapshot(queued("r0", 0));
    for (int i = 1; i <= Calibration.MIN_SAMPLES + 2; i++) {
      Request r = request("c-" + i, prompt(1_000, i)).build();
      RoutingDecision d = router.route(r);
      router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).cachedTokens(0)
          .ttft(Duration.ofMillis(150)).build());
    }

    assertThat(viewOf("r0", prompt(1_000, 9_999)).prefillMillisPerToken())
        .isEqualTo(CostModel.defaults().prefillMillisPerToken());
  }

  @Test
  void reportedPrefillThroughputTakesPrecedenceOverDefaults() {
    router.onSnapshot(ready("r0").prefillTokensPerSecond(20_000).build());

    assertThat(viewOf("r0", prompt(1_000, 1)).prefillMillisPerToken()).isEqualTo(1_000.0 / 20_000);
  }

  // --------------------------------------------------------------------------------- rollback

  static Stream<Arguments> firstOutcomes() {
    return Stream.of(
        Arguments.of("success", (UnaryOperator<Outcome.Builder>)
            b -> b.status(OutcomeStatus.SUCCESS), true),
        Arguments.of("connection failed before prefill", (UnaryOperator<Outcome.Builder>)
            b -> b.status(OutcomeStatus.CONNECTION_FAILED), false),
        Arguments.of("rejected by the replica", (UnaryOperator<Outcome.Builder>)
            b -> b.status(OutcomeStatus.REJECTED_BY_REPLICA), false),
        Arguments.of("cancelled before prefill", (UnaryOperator<Outcome.Builder>)
            b -> b.status(OutcomeStatus.CANCELLED), false),
        Arguments.of("timeout after the first token", (UnaryOperator<Outcome.Builder>)
            b -> b.status(OutcomeStatus.TIMEOUT).ttft(Duration.ofMillis(90)), true),
        Arguments.of("cancelled after reusing cache", (UnaryOperator<Outcome.Builder>)
            b -> b.status(OutcomeStatus.CANCELLED).cachedTokens(0), true));
  }

  @ParameterizedTest(name = "{0}: guess kept = {2}")
  @MethodSource("firstOutcomes")
  void optimisticInsertIsRolledBackOnlyWhenPrefillNeverStarted(
      String what, UnaryOperator<Outcome.Builder> status, boolean kept) {
    PromptKey p = prompt(640, 3);
    router.onSnapshot(queued("r0", 0));
    Request r = request("q-1", p).build();
    RoutingDecision d = router.route(r);
    Outcome o = status.apply(Outcome.newBuilder().requestId("q-1").replicaId("r0")
        .epoch(d.epoch())).build();
    assertThat(o.prefillStarted()).isEqualTo(kept);

    assertThat(router.onOutcome(o)).isEqualTo(UpdateResult.APPLIED);

    assertThat(router.route(request("q-2", p).build()).matchedTokens()).isEqualTo(kept ? 640 : 0);
  }

  @Test
  void rollbackLeavesBlocksThatAnotherRoutingTouchedSince() {
    PromptKey shared = prompt(640, 3);
    router.onSnapshot(queued("r0", 0));
    Request first = request("q-1", shared).build();
    RoutingDecision d1 = router.route(first);
    assertThat(router.route(request("q-2", shared).build()).matchedTokens()).isEqualTo(640);

    router.onOutcome(outcome(first, d1, OutcomeStatus.CONNECTION_FAILED).build());

    assertThat(router.route(request("q-3", shared).build()).matchedTokens()).isEqualTo(640);
  }

  @Test
  void rollbackKeepsThePrefixTheReplicaWasAlreadyBelievedToHold() {
    PromptKey base = prompt(320, 3);
    int[] longer = java.util.Arrays.copyOf(TestData.tokens(320, 3), 640);
    System.arraycopy(TestData.tokens(320, 4), 0, longer, 320, 320);
    PromptKey extended = PromptKey.ofTokens(longer, TestData.NS);
    router.onSnapshot(queued("r0", 0));
    Request warm = request("w-1", base).build();
    router.onOutcome(outcome(warm, router.route(warm), OutcomeStatus.SUCCESS).build());
    Request r = request("q-1", extended).build();
    RoutingDecision d = router.route(r);
    assertThat(d.matchedTokens()).isEqualTo(320);

    router.onOutcome(outcome(r, d, OutcomeStatus.CONNECTION_FAILED).build());

    assertThat(router.route(request("q-2", extended).build()).matchedTokens()).isEqualTo(320);
  }

  // ------------------------------------------------------------------------------ queue factor

  /** Routes one request to {@code r0} (reported queue {@code queueMillis}) and reports its TTFT. */
  private void queueLesson(int n, double queueMillis, double ttftMillis) {
    router.onSnapshot(queued("r0", queueMillis));
    Request r = request("qf-" + n, prompt(1_000, 100 + n)).build();
    RoutingDecision d = router.route(r);
    router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).cachedTokens(0)
        .ttft(Duration.ofMillis((long) ttftMillis)).build());
  }

  private double queueFactor() {
    return router.replicas().get(0).queueFactor();
  }

  @Test
  void queuesThatTakeLongerThanPredictedRaiseTheQueueFactorTowardTheirRatio() {
    // predicted: 400 ms of queue + 55 ms of prefill; observed: 2 x 400 + 55
    for (int i = 0; i < 200; i++) {
      queueLesson(i, 400, 855);
    }

    assertThat(queueFactor()).isCloseTo(2.0, within(0.01));
    CandidateView v = viewOf("r0", prompt(1_000, 99));
    assertThat(v.estimatedQueueMillis()).as("ranking keeps the estimate").isEqualTo(400.0);
    assertThat(v.calibratedQueueMillis()).isCloseTo(800.0, within(5.0));
  }

  @Test
  void shortQueuesTeachNothing() {
    for (int i = 0; i < 50; i++) {
      queueLesson(i, Calibration.MIN_QUEUE_MILLIS - 1, 1_000);
    }

    assertThat(queueFactor()).isEqualTo(1.0);
    assertThat(viewOf("r0", prompt(1_000, 99)).calibratedQueueMillis())
        .isEqualTo(Calibration.MIN_QUEUE_MILLIS - 1);
  }

  @Test
  void oneWildOutcomeMovesTheFactorOnlyByItsClampedWeight() {
    queueLesson(0, 400, 60_000);

    assertThat(queueFactor())
        .isCloseTo(1 + Calibration.QUEUE_ALPHA * (Calibration.MAX_QUEUE_FACTOR - 1), within(1e-9));
  }

  @Test
  void queuesThatDrainFasterThanPredictedLowerTheFactorDownToItsFloor() {
    for (int i = 0; i < 300; i++) {
      queueLesson(i, 400, 55);
    }

    assertThat(queueFactor()).isCloseTo(Calibration.MIN_QUEUE_FACTOR, within(0.01));
  }

  @Test
  void scatteredQueuesLeaveASpreadSteadyOnesDoNot() {
    // alternately 1.5 and 2.5 times the 400 ms estimate: mean 2, standard deviation 0.5
    for (int i = 0; i < 400; i++) {
      queueLesson(i, 400, (i % 2 == 0 ? 1.5 : 2.5) * 400 + 55);
    }
    CandidateView scattered = viewOf("r0", prompt(1_000, 99));

    assertThat(queueFactor()).isCloseTo(2.0, within(0.05));
    assertThat(scattered.queueUncertaintyMillis()).isCloseTo(0.5 * 400, within(0.05 * 400));

    for (int i = 400; i < 800; i++) {
      queueLesson(i, 400, 2.0 * 400 + 55);
    }

    assertThat(viewOf("r0", prompt(1_000, 99)).queueUncertaintyMillis()).isLessThan(1.0);
  }
}
