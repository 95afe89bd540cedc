package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.Priority;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.RoutingDecision;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The standard admission controller: deadline veto with retry-after, and priority backpressure. */
class AdmissionTest {
  /** 1,000 tokens at the default 20 ms + 0.035 ms/token: 55 ms of prefill. */
  private static final PromptKey P = prompt(1_000, 1);

  private final ManualTicker ticker = new ManualTicker();

  private Router router(AdmissionController admission, double... queues) {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).admission(admission)
        .ticker(ticker).build();
    for (int i = 0; i < queues.length; i++) {
      router.onSnapshot(queued("r" + i, queues[i]));
    }
    return router;
  }

  @ParameterizedTest(name = "{0} ms since arrival -> admitted {1}")
  @CsvSource({"0, true", "195, true", "196, false"})
  void timeSinceArrivalAtTheRouterCountsAgainstTheBudget(long sinceArrival, boolean admitted) {
    Router router = router(Admission.standard(), 0);
    ticker.advanceMillis(1_000);
    long arrival = ticker.read() - sinceArrival * 1_000_000;

    RoutingDecision d = router.route(request("q-1", P).ttftBudget(Duration.ofMillis(300))
        .upstreamElapsed(Duration.ofMillis(50)).arrivalNanos(arrival).build());

    // 300 - 50 - sinceArrival must cover 55 ms
    assertThat(d.isRouted()).isEqualTo(admitted);
  }

  @Test
  void aDeadlineAlreadyPassedIsRejectedWithoutARetryAfter() {
    Router router = router(Admission.standard(), 0, 100);

    RoutingDecision d = router.route(request("q-1", P).ttftBudget(Duration.ofMillis(600))
        .upstreamElapsed(Duration.ofMillis(700)).build());

    assertThat(d.reason()).isEqualTo(RejectReason.DEADLINE);
    assertThat(d.retryAfter()).as("waiting cannot help").isEmpty();
  }

  @Test
  void aBudgetTooSmallEvenForAnIdleReplicaHasNoRetryAfter() {
    Router router = router(Admission.standard(), 0, 300);

    RoutingDecision d = router.route(request("q-1", P).ttftBudget(Duration.ofMillis(50)).build());

    assertThat(d.reason()).isEqualTo(RejectReason.DEADLINE);
    assertThat(d.retryAfter()).isEmpty();
  }

  @Test
  void retryAfterIsAtLeastTheMinimum() {
    Router router = router(Admission.newBuilder().minRetryAfter(Duration.ofMillis(50)).build(),
        30);

    // 30 + 55 = 85 ms against 80: 5 ms of the queue to drain, raised to the 50 ms minimum
    RoutingDecision d = router.route(request("q-1", P).ttftBudget(Duration.ofMillis(80)).build());

    assertThat(d.reason()).isEqualTo(RejectReason.DEADLINE);
    assertThat(d.retryAfter()).contains(Duration.ofMillis(50));
  }

  @Test
  void requestsWithoutABudgetAreNeverRejectedForTheDeadline() {
    Router router = router(Admission.standard(), 60_000);

    assertThat(router.route(request("q-1", P).build()).isRouted()).isTrue();
  }

  @Test
  void deadlineVetoCanBeTurnedOff() {
    Router router = router(Admission.newBuilder().deadline(false).build(), 5_000);

    assertThat(router.route(request("q-1", P).ttftBudget(Duration.ofMillis(10)).build())
        .isRouted()).isTrue();
  }

  @ParameterizedTest(name = "{0} with the best queue at {1} ms -> overloaded {2}")
  @CsvSource({"BATCH, 1500, true", "BATCH, 900, false", "STANDARD, 1500, false",
      "INTERACTIVE, 60000, false"})
  void batchWorkIsShedFirstWhenEvenTheBestQueueIsLong(
      Priority priority, double bestQueue, boolean overloaded) {
    Router router = router(Admission.standard(), bestQueue, bestQueue + 500);

    RoutingDecision d = router.route(request("q-1", P).priority(priority).build());

    assertThat(d.isRouted()).isEqualTo(!overloaded);
    if (overloaded) {
      assertThat(d.reason()).isEqualTo(RejectReason.OVERLOADED);
      assertThat(d.retryAfter()).contains(Duration.ofMillis((long) bestQueue - 1_000));
      assertThat(d.detail()).contains("BATCH");
    }
  }

  @Test
  void queueLimitsAreConfigurablePerPriority() {
    AdmissionController admission = Admission.newBuilder()
        .queueLimit(Priority.INTERACTIVE, Duration.ofMillis(200))
        .queueLimit(Priority.BATCH, null).build();
    Router router = router(admission, 300);

    assertThat(router.route(request("q-1", P).priority(Priority.INTERACTIVE).build()).reason())
        .isEqualTo(RejectReason.OVERLOADED);
    assertThat(router.route(request("q-2", P).priority(Priority.BATCH).build()).isRouted())
        .as("limit removed").isTrue();
  }

  @Test
  void optionsSetTwiceThrow() {
    assertThatIllegalStateException().isThrownBy(
        () -> Admission.newBuilder().deadline(true).deadline(false))
        .withMessage("deadline: already set (expected: each builder option set once)");
    assertThatIllegalStateException().isThrownBy(() -> Admission.newBuilder()
        .queueLimit(Priority.BATCH, null).queueLimit(Priority.BATCH, Duration.ZERO))
        .withMessageStartingWith("queueLimit BATCH: already set");
  }

  // --------------------------------------------------------------- calibrated queue (outcomes)

  /** Teaches {@code router} that r0's queues take {@code factor} times their estimate. */
  private void teachQueueFactor(Router router, double queueMillis, double factor) {
    teachQueueFactors(router, queueMillis, factor, factor);
  }

  /** Teaches {@code router} that r0's queues take alternately {@code f1} and {@code f2} times. */
  private void teachQueueFactors(Router router, double queueMillis, double f1, double f2) {
    for (int i = 0; i < 400; i++) {
      router.onSnapshot(queued("r0", queueMillis));
      io.github.kvroute.api.Request r = request("lesson-" + i, prompt(1_000, 1_000 + i)).build();
      RoutingDecision d = router.route(r);
      double factor = i % 2 == 0 ? f1 : f2;
      router.onOutcome(TestData.outcome(r, d, io.github.kvroute.api.OutcomeStatus.SUCCESS)
          .cachedTokens(0).ttft(Duration.ofMillis(Math.round(factor * queueMillis + 55))).build());
    }
  }

  @ParameterizedTest(name = "confidence {0} -> admitted {1}")
  @CsvSource({"0.5, true", "0.7, true", "0.9, false"})
  void aScatteredQueueNeedsMoreRoomTheSurerAdmissionMustBe(double confidence, boolean admitted) {
    Router router = router(Admission.newBuilder().deadlineConfidence(confidence).build(), 200);
    // factor 1 on average, spread 0.5: at 200 ms the wait is 200 +- 100 ms
    teachQueueFactors(router, 200, 0.5, 1.5);
    router.onSnapshot(queued("r0", 200));

    // budget 350: 200 + 55 fits at the mean (0.5) and at z(0.7) = 0.52 -> 307;
    // z(0.9) = 1.28 -> 383 does not
    RoutingDecision d = router.route(request("q-1", P).ttftBudget(Duration.ofMillis(350)).build());

    assertThat(d.isRouted()).isEqualTo(admitted);
  }

  @Test
  void deadlineConfidenceIsValidatedAndSetOnce() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Admission.newBuilder().deadlineConfidence(0.4))
        .withMessage("deadlineConfidence: 0.4 (expected: in [0.5, 0.999])");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Admission.newBuilder().deadlineConfidence(Double.NaN))
        .withMessage("deadlineConfidence: NaN (expected: in [0.5, 0.999])");
    assertThatIllegalStateException()
        .isThrownBy(() -> Admission.newBuilder().deadlineConfidence(0.8).deadlineConfidence(0.9))
        .withMessageContaining("deadlineConfidence: already set");
  }

  @Test
  void theDeadlineIsJudgedByTheQueueOutcomesTaught() {
    Router untaught = router(Admission.standard(), 200);
    Router taught = router(Admission.standard(), 200);
    teachQueueFactor(taught, 200, 2.0);
    taught.onSnapshot(queued("r0", 200));

    // 200 ms of queue + 55 ms of prefill = 255 ms fits 300; taught, 2 x 200 + 55 = 455 does not
    RoutingDecision fits = untaught.route(request("q-1", P).ttftBudget(Duration.ofMillis(300)).build());
    RoutingDecision vetoed = taught.route(request("q-1", P).ttftBudget(Duration.ofMillis(300)).build());

    assertThat(fits.isRouted()).isTrue();
    assertThat(fits.cost().totalMillis()).as("the policy's estimate").isEqualTo(255.0);
    assertThat(vetoed.reason()).isEqualTo(RejectReason.DEADLINE);
    assertThat(vetoed.detail()).startsWith("predicted 45");
    // the calibrated queue (400) drains at 2 ms per ms: 155 ms over the budget is ~78 ms away
    assertThat(vetoed.retryAfter()).isPresent();
    assertThat(vetoed.retryAfter().get().toMillis()).isBetween(76L, 80L);
  }

  @Test
  void backpressureIsJudgedByTheQueueOutcomesTaught() {
    Router taught = router(Admission.standard(), 600);
    teachQueueFactor(taught, 600, 2.0);
    taught.onSnapshot(queued("r0", 600));

    // BATCH's default limit is 1 s: 600 ms estimated passes, 2 x 600 calibrated does not
    RoutingDecision d = taught.route(request("b-1", P).priority(Priority.BATCH).build());

    assertThat(d.reason()).isEqualTo(RejectReason.OVERLOADED);
    assertThat(router(Admission.standard(), 600)
        .route(request("b-1", P).priority(Priority.BATCH).build()).isRouted()).isTrue();
  }
}
