package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.LatencyTotals;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import org.junit.jupiter.api.Test;

/**
 * What a gateway learns without an engine patch: the first streamed token of each response, and a
 * stock engine's counters.
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

  private static ReplicaSnapshot counters(long at, long prompt, long hits, double prefillSeconds,
      long finished) {
    return ready("r0").observedAtNanos(at).waitingRequests(0).promptTokensTotal(prompt)
        .prefixCache(prompt, hits).prefillTime(new LatencyTotals(prefillSeconds, finished)).build();
  }

  @Test
  void stockCountersTeachThePrefillRate() {
    CostModel prior = router.costModel();
    double overhead = prior.prefillOverheadMillis();
    router.onSnapshot(counters(0, 0, 0, 0, 0));
    double truth = prior.prefillMillisPerToken() * 3;
    long prompt = 0;
    long hits = 0;
    double seconds = 0;
    long finished = 0;
    for (int i = 1; i <= Calibration.MIN_SAMPLES; i++) {
      // 4 requests of 1,000 prompt tokens each, 200 of them cached
      prompt += 4_000;
      hits += 800;
      finished += 4;
      seconds += (4 * overhead + 3_200 * truth) / 1000;
      router.onSnapshot(counters(i * 250_000_000L, prompt, hits, seconds, finished));
    }

    assertThat(router.replicas().get(0).prefillMillisPerToken()).isCloseTo(truth, within(1e-9));
  }

  @Test
  void withoutCountersThePriorStays() {
    for (int i = 0; i <= Calibration.MIN_SAMPLES; i++) {
      router.onSnapshot(ready("r0").observedAtNanos(i).waitingRequests(0).build());
    }

    assertThat(router.replicas().get(0).prefillMillisPerToken())
        .isEqualTo(router.costModel().prefillMillisPerToken());
  }
}
