package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * What a disaggregated attempt teaches the router: its prefill replica's rate, not the KV move to
 * its decode replica; and when its prefill leaves the prefill replica's books.
 */
class DisaggregatedFeedbackTest {
  private static final int PROMPT = 1_000;
  /** The prefill's truth: 30 ms queued, then 20 + 1,000 x 0.1 ms. */
  private static final double QUEUE_MS = 30;
  private static final double PREFILL_END_MS = QUEUE_MS + 20 + PROMPT * 0.1;

  private final ManualTicker ticker = new ManualTicker();
  private final Router router = Router.newBuilder().policy(new LeastPairPolicy()).ticker(ticker).seed(3)
      .build();
  /** 1,000 tokens of the default 320 KiB over the default reference link (6,000 in 95 ms). */
  private final double moveMillis = CostModel.defaults().kvTransferMillis(PROMPT);

  DisaggregatedFeedbackTest() {
    router.onSnapshot(replica("P1", ReplicaRole.PREFILL));
    router.onSnapshot(replica("D1", ReplicaRole.DECODE));
  }

  private static ReplicaSnapshot replica(String id, ReplicaRole role) {
    return TestData.ready(id).role(role).estimatedQueueDelayMillis(0).build();
  }

  private static Request request(String id) {
    return TestData.request(id, PromptKey.unhashed(PROMPT)).build();
  }

  /**
   * Routes {@link Calibration#MIN_SAMPLES} pairs, each answering {@code ttft} = the prefill's end,
   * the move and a 5 ms decode step, with the outcome fields {@code report} adds.
   */
  private void learnFromPairs(UnaryOperator<Outcome.Builder> report) {
    for (int i = 1; i <= Calibration.MIN_SAMPLES; i++) {
      Request r = request("pd-" + i);
      RoutingDecision d = router.route(r);
      assertThat(d.prefillReplicaId()).contains("P1");
      assertThat(router.onFirstToken(r.id(), 1, d.replicaId(), d.epoch()))
          .isEqualTo(UpdateResult.APPLIED);
      Outcome.Builder o = TestData.outcome(r, d, OutcomeStatus.SUCCESS).cachedTokens(0)
          .queueTime(Duration.ofMillis((long) QUEUE_MS))
          .ttft(ms(PREFILL_END_MS + moveMillis + 5));
      assertThat(router.onOutcome(report.apply(o).build())).isEqualTo(UpdateResult.APPLIED);
    }
  }

  private static Duration ms(double millis) {
    return Duration.ofNanos(Math.round(millis * 1e6));
  }

  private ReplicaStatus status(String id) {
    return router.replicas().stream().filter(s -> s.replicaId().equals(id)).findFirst()
        .orElseThrow();
  }

  @Test
  void theReportedPrefillTimeCalibratesThePrefillReplica() {
    learnFromPairs(o -> o.prefillTime(ms(PREFILL_END_MS)));

    assertThat(status("P1").prefillMillisPerToken()).isCloseTo(0.1, within(1e-6));
  }

  @Test
  void withoutAPrefillTimeThePricedMoveIsTakenOutOfTheTtft() {
    learnFromPairs(o -> o);

    // (ttft - queue - move) = 150 ms + the 5 ms decode step, over 1,000 tokens after 20 ms of overhead;
    // with the move left in, it was 0.1208
    assertThat(status("P1").prefillMillisPerToken()).isCloseTo(0.105, within(1e-6));
  }

  @Test
  void aPrefillReportedDoneLeavesThePrefillQueueBeforeTheFirstToken() {
    Request r = request("pd-1");
    RoutingDecision d = router.route(r);
    assertThat(status("P1").estimatedQueueMillis()).isPositive();

    UpdateResult done = router.onPrefillDone(r.id(), 1, "P1", d.prefillEpoch());

    assertThat(done).isEqualTo(UpdateResult.APPLIED);
    assertThat(status("P1").estimatedQueueMillis()).isZero();
    assertThat(router.onPrefillDone(r.id(), 1, "P1", d.prefillEpoch()))
        .isEqualTo(UpdateResult.DUPLICATE);
    // the first token still ends the move's reservation, once
    assertThat(router.onFirstToken(r.id(), 1, d.replicaId(), d.epoch()))
        .isEqualTo(UpdateResult.APPLIED);
    assertThat(router.onFirstToken(r.id(), 1, d.replicaId(), d.epoch()))
        .isEqualTo(UpdateResult.DUPLICATE);
  }

  @Test
  void aPrefillDoneReportNamingAnotherReplicaOrAWholeRequestIsMismatched() {
    Request r = request("pd-1");
    RoutingDecision d = router.route(r);

    assertThat(router.onPrefillDone(r.id(), 1, "D1", d.epoch()))
        .isEqualTo(UpdateResult.MISMATCHED_REPLICA);
    assertThat(router.onPrefillDone(r.id(), 1, "P1", d.prefillEpoch() + 1))
        .isEqualTo(UpdateResult.MISMATCHED_REPLICA);
    assertThat(router.onPrefillDone("never-routed", 1, "P1", d.prefillEpoch()))
        .isEqualTo(UpdateResult.UNKNOWN_REQUEST);
    assertThat(status("P1").estimatedQueueMillis()).isPositive();
  }
}
