package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.BreakerState;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Breakers as the router applies them: outcomes feed them, open ones get no traffic, probes gate recovery. */
class RouterBreakerTest {
  private final ManualTicker ticker = new ManualTicker();
  private final RecordingListener listener = new RecordingListener();
  private final Router router = Router.newBuilder().policy(new LeastEstimatePolicy())
      .listener(listener).ticker(ticker).seed(9)
      .breaker(BreakerConfig.newBuilder().consecutiveFailures(2)
          .openDuration(Duration.ofSeconds(10)).halfOpenProbes(1).build())
      .build();
  private int requests;

  /** r0 is preferred (idle); r1 is the fallback. */
  RouterBreakerTest() {
    router.onSnapshot(queued("r0", 0));
    router.onSnapshot(queued("r1", 500));
  }

  private RoutingDecision routeAndReport(OutcomeStatus status) {
    Request r = request("q-" + ++requests, prompt(256, requests)).build();
    RoutingDecision d = router.route(r);
    router.onOutcome(outcome(r, d, status).build());
    return d;
  }

  private String next() {
    return router.route(request("q-" + ++requests, prompt(256, requests)).build()).replicaId();
  }

  private BreakerState state() {
    return router.fleet().get("r0").breaker.state();
  }

  @ParameterizedTest
  @EnumSource(value = OutcomeStatus.class, names = {"CANCELLED", "CLIENT_ERROR", "REJECTED_BY_REPLICA"})
  void outcomesThatAreNotTheReplicasFaultNeverOpenIt(OutcomeStatus status) {
    for (int i = 0; i < 10; i++) {
      assertThat(routeAndReport(status).replicaId()).isEqualTo("r0");
    }

    assertThat(state()).isEqualTo(BreakerState.CLOSED);
    assertThat(next()).isEqualTo("r0");
  }

  @ParameterizedTest
  @EnumSource(value = OutcomeStatus.class, names = {"REPLICA_ERROR", "TIMEOUT", "CONNECTION_FAILED"})
  void replicaFaultsOpenTheBreaker_andAnOpenReplicaGetsNoTraffic(OutcomeStatus status) {
    routeAndReport(status);
    assertThat(state()).isEqualTo(BreakerState.CLOSED);
    routeAndReport(status);

    assertThat(state()).isEqualTo(BreakerState.OPEN);
    assertThat(listener.events).contains("breaker r0 CLOSED->OPEN");
    for (int i = 0; i < 5; i++) {
      assertThat(next()).isEqualTo("r1");
    }
  }

  @Test
  void recoveryNeedsTheWaitAndAFreshReadyReport_thenOneProbe_thenCloses() {
    routeAndReport(OutcomeStatus.REPLICA_ERROR);
    routeAndReport(OutcomeStatus.REPLICA_ERROR);
    assertThat(state()).isEqualTo(BreakerState.OPEN);

    ticker.advanceMillis(10_000);
    assertThat(next()).as("waited, but no READY since opening").isEqualTo("r1");
    router.onSnapshot(queued("r0", 0));

    Request probe = request("probe", prompt(256, 999)).build();
    RoutingDecision d = router.route(probe);
    assertThat(d.replicaId()).isEqualTo("r0");
    assertThat(state()).isEqualTo(BreakerState.HALF_OPEN);
    assertThat(next()).as("one probe in flight at most").isEqualTo("r1");

    router.onOutcome(outcome(probe, d, OutcomeStatus.SUCCESS).build());

    assertThat(state()).isEqualTo(BreakerState.CLOSED);
    assertThat(next()).isEqualTo("r0");
    assertThat(listener.events).containsSubsequence("breaker r0 CLOSED->OPEN",
        "breaker r0 OPEN->HALF_OPEN", "breaker r0 HALF_OPEN->CLOSED");
  }

  @Test
  void aCancelledProbeFreesItsPlaceWithoutClosing() {
    routeAndReport(OutcomeStatus.REPLICA_ERROR);
    routeAndReport(OutcomeStatus.REPLICA_ERROR);
    ticker.advanceMillis(10_000);
    router.onSnapshot(queued("r0", 0));
    Request probe = request("probe", prompt(256, 999)).build();
    RoutingDecision d = router.route(probe);
    assertThat(d.replicaId()).isEqualTo("r0");

    router.onOutcome(outcome(probe, d, OutcomeStatus.CANCELLED).build());

    assertThat(state()).isEqualTo(BreakerState.HALF_OPEN);
    assertThat(next()).as("the next probe").isEqualTo("r0");
  }

  @Test
  void aFailedProbeReopens() {
    routeAndReport(OutcomeStatus.REPLICA_ERROR);
    routeAndReport(OutcomeStatus.REPLICA_ERROR);
    ticker.advanceMillis(10_000);
    router.onSnapshot(queued("r0", 0));

    assertThat(routeAndReport(OutcomeStatus.TIMEOUT).replicaId()).isEqualTo("r0");

    assertThat(state()).isEqualTo(BreakerState.OPEN);
    assertThat(next()).isEqualTo("r1");
  }
}
