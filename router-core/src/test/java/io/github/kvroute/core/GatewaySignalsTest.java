package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What a gateway learns without an engine patch: the first streamed token of each response, and the
 * prefill rate from its own TTFT measurements.
 */
class GatewaySignalsTest {
  private final ManualTicker ticker = new ManualTicker();
  private final Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
      .seed(3).build();

  private double queueOf(String replicaId) {
    return router.replicas().stream().filter(s -> s.replicaId().equals(replicaId)).findFirst()
        .orElseThrow().estimatedQueueMillis();
  }

  @Test
  void aFirstTokenTakesTheAttemptsPrefillOffTheQueueButKeepsItInFlight() {
    router.onSnapshot(ready("r0").waitingRequests(0).build());
    Request r = request("q-1", prompt(4_000, 1)).build();
    RoutingDecision d = router.route(r);
    double before = queueOf("r0");
    assertThat(before).isPositive();

    assertThat(router.onFirstToken("q-1", 1, "r0", d.epoch())).isEqualTo(UpdateResult.APPLIED);

    assertThat(queueOf("r0")).isZero();
    assertThat(router.replicas().get(0).inFlightRequests()).isEqualTo(1);
    assertThat(router.onFirstToken("q-1", 1, "r0", d.epoch())).isEqualTo(UpdateResult.DUPLICATE);
    assertThat(router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).build()))
        .isEqualTo(UpdateResult.APPLIED);
    assertThat(router.replicas().get(0).inFlightRequests()).isZero();
    assertThat(router.onFirstToken("q-1", 1, "r0", d.epoch())).isEqualTo(UpdateResult.DUPLICATE);
  }

  @Test
  void aFirstTokenForAnotherReplicaOrAnUnknownAttemptChangesNothing() {
    router.onSnapshot(ready("r0").waitingRequests(0).build());
    RoutingDecision d = router.route(request("q-1", prompt(2_000, 2)).build());
    double before = queueOf("r0");

    assertThat(router.onFirstToken("q-1", 1, "r9", d.epoch()))
        .isEqualTo(UpdateResult.MISMATCHED_REPLICA);
    assertThat(router.onFirstToken("q-1", 1, "r0", d.epoch() + 1))
        .isEqualTo(UpdateResult.MISMATCHED_REPLICA);
    assertThat(router.onFirstToken("never", 1, "r0", 0)).isEqualTo(UpdateResult.UNKNOWN_REQUEST);
    assertThat(queueOf("r0")).isEqualTo(before);
  }

  /** Routes one attempt of {@code tokens} fresh tokens; its TTFT is {@code 28 + 0.1 x tokens} ms. */
  private void unqueued(String id, int tokens, boolean streamFirstToken) {
    Request r = request(id, prompt(tokens, id.hashCode())).build();
    RoutingDecision d = router.route(r);
    if (streamFirstToken) {
      router.onFirstToken(id, 1, d.replicaId(), d.epoch());
    }
    router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).cachedTokens(0)
        .ttft(Duration.ofNanos(Math.round((28 + 0.1 * tokens) * 1e6))).build());
  }

  @Test
  void withoutQueueTimesTheRateIsFitFromAttemptsWithNoPrefillAhead() {
    router.onSnapshot(ready("r0").waitingRequests(0).build());
    for (int i = 0; i < Calibration.MIN_FIT_SAMPLES; i++) {
      unqueued("q-" + i, 500 + 250 * i, true);
    }

    assertThat(router.replicas().get(0).prefillMillisPerToken())
        .as("the slope, whatever the fixed costs").isCloseTo(0.1, within(1e-9));
  }

  @Test
  void sameSizedPromptsOrAttemptsBehindAPrefillTeachNothing() {
    router.onSnapshot(ready("r0").waitingRequests(0).build());
    for (int i = 0; i < 2 * Calibration.MIN_FIT_SAMPLES; i++) {
      unqueued("same-" + i, 1_000, true);
    }
    // a prefill in flight without its first token: later attempts may have queued behind it
    router.route(request("blocker", prompt(4_000, 99)).build());
    for (int i = 0; i < 2 * Calibration.MIN_FIT_SAMPLES; i++) {
      unqueued("behind-" + i, 500 + 250 * i, false);
    }

    assertThat(router.replicas().get(0).prefillMillisPerToken())
        .isEqualTo(router.costModel().prefillMillisPerToken());
  }
}
