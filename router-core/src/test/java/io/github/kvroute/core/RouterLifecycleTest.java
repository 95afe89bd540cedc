package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Membership over time: joins, restarts (new epochs), stops, removal and lease expiry. */
class RouterLifecycleTest {
  private static final PromptKey P = prompt(640, 1);

  private final ManualTicker ticker = new ManualTicker();
  private final RecordingListener listener = new RecordingListener();
  private final Router router = Router.newBuilder().policy(new LeastEstimatePolicy())
      .listener(listener).ticker(ticker).leaseTimeout(Duration.ofSeconds(1)).seed(3).build();

  private RoutingDecision route(String id) {
    return router.route(request(id, P).build());
  }

  @Test
  void aReplicaIsRoutableOnlyOnceItReportsReady() {
    router.onSnapshot(ready("r0").epoch(1).state(ReplicaState.STARTING).build());
    assertThat(route("q-1").reason()).isEqualTo(RejectReason.NO_CANDIDATES);

    router.onSnapshot(ready("r0").epoch(1).build());

    assertThat(route("q-2").replicaId()).isEqualTo("r0");
    assertThat(listener.events).containsExactly("state r0#1 null->STARTING",
        "state r0#1 STARTING->READY");
  }

  @Test
  void restart_newEpochOrphansOldAttempts_isUnroutableUntilReady_andHasAColdCache() {
    router.onSnapshot(ready("r0").epoch(1).build());
    RoutingDecision first = route("q-1");
    assertThat(first.epoch()).isEqualTo(1);
    assertThat(route("q-2").matchedTokens()).as("warm: the first routing was remembered")
        .isEqualTo(640);

    UpdateResult restart = router.onSnapshot(ready("r0").epoch(2).state(ReplicaState.STARTING)
        .build());

    assertThat(restart).isEqualTo(UpdateResult.APPLIED);
    assertThat(listener.events).contains("restarted r0 1->2");
    assertThat(listener.orphaned).containsExactlyInAnyOrder(new RequestRef("q-1", 1),
        new RequestRef("q-2", 1));
    assertThat(router.stats().orphaned()).isEqualTo(2);
    assertThat(router.stats().inFlight()).isZero();
    assertThat(router.fleet().get("r0").ledger.inFlightRequests()).isZero();
    assertThat(route("q-3").reason()).isEqualTo(RejectReason.NO_CANDIDATES);

    router.onSnapshot(ready("r0").epoch(2).build());
    RoutingDecision after = route("q-4");

    assertThat(after.replicaId()).isEqualTo("r0");
    assertThat(after.epoch()).isEqualTo(2);
    assertThat(after.matchedTokens()).as("cold cache after the restart").isZero();
    Request q1 = request("q-1", P).build();
    assertThat(router.onOutcome(outcome(q1, first, OutcomeStatus.SUCCESS).build()))
        .as("the orphaned attempt's late outcome").isEqualTo(UpdateResult.DUPLICATE);
    RouterStats stats = router.stats();
    assertThat(stats.routed()).isEqualTo(stats.inFlight() + stats.outcomesApplied()
        + stats.expired() + stats.orphaned());
  }

  @Test
  void restart_exactModeEntriesAreDroppedToo() {
    router.onSnapshot(ready("r0").epoch(1).build());
    router.onKvEvent(TestData.storedPrefix("r0", 1, P, P.blockCount()));
    assertThat(route("q-1").matchedTokens()).isEqualTo(640);

    router.onSnapshot(ready("r0").epoch(2).build());

    assertThat(route("q-2").matchedTokens()).isZero();
    assertThat(router.index().isExact(router.fleet().get("r0").slot))
        .as("a new process starts in approximate mode").isFalse();
  }

  @Test
  void restartAnnouncedByAKvEventOfANewerEpoch_isUnroutableUntilTheNewProcessReports() {
    router.onSnapshot(ready("r0").epoch(1).build());
    route("q-1");

    assertThat(router.onKvEvent(KvEvent.cleared("r0", 2))).isEqualTo(UpdateResult.APPLIED);

    assertThat(listener.events).contains("restarted r0 1->2");
    assertThat(listener.orphaned).containsExactly(new RequestRef("q-1", 1));
    assertThat(route("q-2").reason()).isEqualTo(RejectReason.NO_CANDIDATES);
    assertThat(router.onSnapshot(ready("r0").epoch(1).build()))
        .isEqualTo(UpdateResult.STALE_EPOCH);
    assertThat(route("q-3").reason()).isEqualTo(RejectReason.NO_CANDIDATES);
    router.onSnapshot(ready("r0").epoch(2).build());
    assertThat(route("q-4").epoch()).isEqualTo(2);
  }

  @Test
  void stoppedReportOrphansInFlightAttempts_andEndsRouting() {
    router.onSnapshot(ready("r0").build());
    router.onSnapshot(ready("r1").estimatedQueueDelayMillis(5_000).build());
    RoutingDecision d = route("q-1");
    assertThat(d.replicaId()).isEqualTo("r0");

    router.onSnapshot(ready("r0").state(ReplicaState.STOPPED).build());

    assertThat(listener.events).contains("state r0#0 READY->STOPPED",
        "orphaned r0#0 [q-1#1]");
    assertThat(router.stats().orphaned()).isEqualTo(1);
    assertThat(router.stats().inFlight()).isZero();
    assertThat(route("q-2").replicaId()).isEqualTo("r1");
  }

  @Test
  void stoppedThenReadyInTheSameEpochComesBackCold() {
    router.onSnapshot(ready("r0").build());
    route("q-1");
    assertThat(route("q-2").matchedTokens()).isEqualTo(640);

    router.onSnapshot(ready("r0").state(ReplicaState.STOPPED).build());
    router.onSnapshot(ready("r0").build());

    assertThat(route("q-3").matchedTokens()).isZero();
  }

  @Test
  void removeReplica_orphansItsAttempts_andLateReportsFromItsEpochAreStale() {
    router.onSnapshot(ready("r0").epoch(4).build());
    route("q-1");

    assertThat(router.removeReplica("r0")).isTrue();

    assertThat(listener.events).contains("orphaned r0#4 [q-1#1]", "state r0#4 READY->STOPPED");
    assertThat(router.stats().orphaned()).isEqualTo(1);
    assertThat(router.stats().inFlight()).isZero();
    assertThat(router.fleet().get("r0")).isNull();
    assertThat(router.onSnapshot(ready("r0").epoch(4).build())).isEqualTo(UpdateResult.STALE_EPOCH);
    assertThat(router.onSnapshot(ready("r0").epoch(3).build())).isEqualTo(UpdateResult.STALE_EPOCH);
    assertThat(router.onKvEvent(KvEvent.stored("r0", 4, P.blockHashes())))
        .isEqualTo(UpdateResult.STALE_EPOCH);
    assertThat(route("q-2").reason()).isEqualTo(RejectReason.NO_CANDIDATES);
    assertThat(router.removeReplica("r0")).isFalse();
  }

  @Test
  void removedReplicaMayRejoinWithANewProcess() {
    router.onSnapshot(ready("r0").epoch(4).build());
    route("q-1");
    router.removeReplica("r0");

    assertThat(router.onSnapshot(ready("r0").epoch(5).build())).isEqualTo(UpdateResult.APPLIED);

    RoutingDecision d = route("q-2");
    assertThat(d.epoch()).isEqualTo(5);
    assertThat(d.matchedTokens()).isZero();
  }

  @Test
  void drainingReplicaGetsNoNewTrafficButItsAttemptsComplete() {
    router.onSnapshot(ready("r0").build());
    Request r = request("q-1", P).build();
    RoutingDecision d = router.route(r);

    router.onSnapshot(ready("r0").state(ReplicaState.DRAINING).build());

    assertThat(route("q-2").reason()).isEqualTo(RejectReason.NO_CANDIDATES);
    assertThat(router.stats().orphaned()).isZero();
    assertThat(router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).build()))
        .isEqualTo(UpdateResult.APPLIED);
    assertThat(router.stats().inFlight()).isZero();
  }

  static Stream<Arguments> expiryTriggers() {
    return Stream.of(
        Arguments.of("stats()", (Consumer<Router>) Router::stats),
        Arguments.of("onSnapshot()", (Consumer<Router>) r -> r.onSnapshot(ready("r1").build())));
  }

  @ParameterizedTest(name = "expiry applied by {0}")
  @MethodSource("expiryTriggers")
  void leaseExpiresAfterTheTimeout_releasingTheBooks_andALateOutcomeIsDuplicate(
      String trigger, Consumer<Router> call) {
    router.onSnapshot(ready("r0").build());
    Request r = request("q-1", P).build();
    RoutingDecision d = router.route(r);

    ticker.advanceMillis(999);
    call.accept(router);
    assertThat(listener.expired).isEmpty();
    assertThat(router.fleet().get("r0").ledger.inFlightRequests()).isEqualTo(1);

    ticker.advanceMillis(2);
    call.accept(router);

    assertThat(listener.expired).containsExactly(new RequestRef("q-1", 1));
    assertThat(listener.events).contains("expired q-1#1 on r0");
    assertThat(router.fleet().get("r0").ledger.inFlightRequests()).isZero();
    RouterStats stats = router.stats();
    assertThat(stats.expired()).isEqualTo(1);
    assertThat(stats.inFlight()).isZero();
    assertThat(router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).build()))
        .isEqualTo(UpdateResult.DUPLICATE);
    assertThat(router.stats().outcomesApplied()).isZero();
  }
}
