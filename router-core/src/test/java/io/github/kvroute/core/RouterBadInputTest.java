package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.MODEL;
import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.api.UpdateResult;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Programming errors throw before any state changes, with {@code name: value (expected: …)} messages;
 * situations that happen in production are values.
 */
class RouterBadInputTest {
  private final ManualTicker ticker = new ManualTicker();
  private final Router router = Router.newBuilder().policy(new LeastEstimatePolicy())
      .ticker(ticker).seed(1).build();

  private Router.Builder builder() {
    return Router.newBuilder().policy(new LeastEstimatePolicy());
  }

  // ------------------------------------------------------------------------------------- nulls

  static Stream<Arguments> nullArguments() {
    return Stream.of(
        Arguments.of("request", (Consumer<Router>) r -> r.route(null)),
        Arguments.of("snapshot", (Consumer<Router>) r -> r.onSnapshot(null)),
        Arguments.of("event", (Consumer<Router>) r -> r.onKvEvent(null)),
        Arguments.of("outcome", (Consumer<Router>) r -> r.onOutcome(null)),
        Arguments.of("replicaId", (Consumer<Router>) r -> r.removeReplica(null)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nullArguments")
  void nullArgumentsThrowNpeNamingTheParameter_andChangeNothing(String name, Consumer<Router> call) {
    router.onSnapshot(queued("r0", 0));
    RouterStats before = router.stats();

    assertThatNullPointerException().isThrownBy(() -> call.accept(router))
        .withMessageStartingWith(name + ": null (expected: ");
    assertThat(router.stats()).isEqualTo(before);
  }

  // ---------------------------------------------------------------------------------- requests

  @Test
  void promptHashedWithAnotherBlockSizeIsRejectedNamingBlockSizeTokens() {
    router.onSnapshot(queued("r0", 0));
    PromptKey eight = PromptKey.ofTokens(TestData.tokens(64, 1), 8, TestData.NS);
    RouterStats before = router.stats();

    assertThatIllegalArgumentException()
        .isThrownBy(() -> router.route(request("q-1", eight).build()))
        .withMessageContaining("blockSizeTokens: 8 (expected: ")
        .withMessageContaining("16");
    assertThat(router.stats()).isEqualTo(before);
  }

  @Test
  void aPromptTooShortToHashIsAcceptedWhateverItsBlockSize() {
    router.onSnapshot(queued("r0", 0));
    PromptKey shortPrompt = PromptKey.ofTokens(TestData.tokens(5, 1), 8, TestData.NS);

    assertThat(router.route(request("q-1", shortPrompt).build()).isRouted()).isTrue();
  }

  @Test
  void routingTheSameAttemptTwiceWhileInFlightThrows_andTheSecondCallChangesNothing() {
    router.onSnapshot(queued("r0", 0));
    Request r = request("q-1", prompt(256, 1)).build();
    assertThat(router.route(r).isRouted()).isTrue();
    RouterStats before = router.stats();

    assertThatIllegalArgumentException().isThrownBy(() -> router.route(r))
        .withMessageContaining("q-1#1")
        .withMessageContaining("(expected: an attempt not already in flight");
    assertThat(router.stats()).isEqualTo(before);
    assertThat(router.fleet().get("r0").ledger.inFlightRequests()).isEqualTo(1);
    // the retry is a new attempt and is routed normally; it is now the one authoritative attempt
    assertThat(router.route(r.nextAttempt()).isRouted()).isTrue();
    assertThat(router.stats().inFlight()).isEqualTo(1);
    assertThat(router.stats().orphaned()).isEqualTo(1);
  }

  // ---------------------------------------------------------------------------------- outcomes

  @Test
  void outcomeForAnUnknownRequestIsUnknownRequest() {
    router.onSnapshot(queued("r0", 0));
    RouterStats before = router.stats();

    UpdateResult result = router.onOutcome(io.github.kvroute.api.Outcome.newBuilder()
        .requestId("never-routed").replicaId("r0").epoch(0).status(OutcomeStatus.SUCCESS).build());

    assertThat(result).isEqualTo(UpdateResult.UNKNOWN_REQUEST);
    assertThat(router.stats()).usingRecursiveComparison().ignoringFields("outcomesByResult")
        .isEqualTo(before);
    assertThat(router.stats().outcomesByResult()).containsEntry(UpdateResult.UNKNOWN_REQUEST, 1L);
  }

  @Test
  void outcomeReportedTwiceIsDuplicateTheSecondTime_withBooksUnchanged() {
    router.onSnapshot(queued("r0", 0));
    Request r = request("q-1", prompt(256, 1)).build();
    RoutingDecision d = router.route(r);
    io.github.kvroute.api.Outcome o = outcome(r, d, OutcomeStatus.SUCCESS).build();
    assertThat(router.onOutcome(o)).isEqualTo(UpdateResult.APPLIED);
    RouterStats before = router.stats();
    int inFlightBefore = router.fleet().get("r0").ledger.inFlightRequests();

    assertThat(router.onOutcome(o)).isEqualTo(UpdateResult.DUPLICATE);

    RouterStats after = router.stats();
    assertThat(after).usingRecursiveComparison().ignoringFields("outcomesByResult")
        .isEqualTo(before);
    assertThat(after.outcomesApplied()).isEqualTo(1);
    assertThat(after.outcomesByResult()).containsEntry(UpdateResult.DUPLICATE, 1L);
    assertThat(router.fleet().get("r0").ledger.inFlightRequests()).isEqualTo(inFlightBefore)
        .isZero();
  }

  @Test
  void outcomeNamingAnotherReplicaOrEpochThanItsLeaseIsMismatched_andTheLeaseStaysOpen() {
    router.onSnapshot(queued("r0", 0));
    router.onSnapshot(queued("r1", 500));
    Request r = request("q-1", prompt(256, 1)).build();
    RoutingDecision d = router.route(r);
    assertThat(d.replicaId()).isEqualTo("r0");
    RouterStats before = router.stats();

    UpdateResult wrongReplica = router.onOutcome(io.github.kvroute.api.Outcome.newBuilder()
        .requestId("q-1").replicaId("r1").epoch(0).status(OutcomeStatus.SUCCESS).build());
    UpdateResult wrongEpoch = router.onOutcome(io.github.kvroute.api.Outcome.newBuilder()
        .requestId("q-1").replicaId("r0").epoch(3).status(OutcomeStatus.SUCCESS).build());

    assertThat(wrongReplica).isEqualTo(UpdateResult.MISMATCHED_REPLICA);
    assertThat(wrongEpoch).isEqualTo(UpdateResult.MISMATCHED_REPLICA);
    assertThat(router.stats()).usingRecursiveComparison().ignoringFields("outcomesByResult")
        .isEqualTo(before);
    assertThat(router.stats().inFlight()).isEqualTo(1);
    assertThat(router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).build()))
        .isEqualTo(UpdateResult.APPLIED);
    assertThat(router.stats().inFlight()).isZero();
  }

  // --------------------------------------------------------------------------------- telemetry

  @Test
  void snapshotFromAnOlderEpochIsStaleEpoch_andRoutingIsUnaffected() {
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router r = builder().ticker(ticker).build();
    Router recorded = Router.newBuilder().policy(policy).ticker(ticker).build();
    for (Router each : new Router[] {r, recorded}) {
      each.onSnapshot(ready("r0").epoch(2).estimatedQueueDelayMillis(40).build());
    }
    RouterStats before = recorded.stats();

    UpdateResult result = recorded.onSnapshot(ready("r0").epoch(1).state(ReplicaState.STOPPED)
        .estimatedQueueDelayMillis(900).build());
    UpdateResult event = recorded.onKvEvent(KvEvent.cleared("r0", 1));

    assertThat(result).isEqualTo(UpdateResult.STALE_EPOCH);
    assertThat(event).isEqualTo(UpdateResult.STALE_EPOCH);
    assertThat(recorded.stats()).isEqualTo(before);
    RoutingDecision d = recorded.route(request("q-1", prompt(256, 1)).build());
    assertThat(d.replicaId()).isEqualTo("r0");
    assertThat(d.epoch()).isEqualTo(2);
    assertThat(policy.views.get("r0").estimatedQueueMillis()).isEqualTo(40.0);
    assertThat(d.cost()).isEqualTo(r.route(request("q-1", prompt(256, 1)).build()).cost());
  }

  @Test
  void anOlderObservationInTheSameEpochIsOutOfOrder_andIgnored() {
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router r = Router.newBuilder().policy(policy).ticker(ticker).build();
    ticker.advanceMillis(1_000);
    assertThat(r.onSnapshot(ready("r0").observedAtNanos(900_000_000L)
        .estimatedQueueDelayMillis(400).build())).isEqualTo(UpdateResult.APPLIED);

    UpdateResult result = r.onSnapshot(ready("r0").observedAtNanos(800_000_000L)
        .state(ReplicaState.DRAINING).estimatedQueueDelayMillis(900).build());

    assertThat(result).isEqualTo(UpdateResult.OUT_OF_ORDER);
    RoutingDecision d = r.route(request("q-1", prompt(256, 1)).build());
    assertThat(d.replicaId()).isEqualTo("r0");
    // still the report observed at 900 ms: 100 ms old, its 400 ms queue drained by 100 ms
    assertThat(policy.views.get("r0").snapshotAgeMillis()).isEqualTo(100.0);
    assertThat(policy.views.get("r0").estimatedQueueMillis()).isEqualTo(300.0);
  }

  // ------------------------------------------------------------------------ degenerate fleets

  @Test
  void emptyFleetIsANoCandidatesRejection_notAnException() {
    RoutingDecision d = router.route(request("q-1", prompt(256, 1)).build());

    assertThat(d.isRouted()).isFalse();
    assertThat(d.reason()).isEqualTo(RejectReason.NO_CANDIDATES);
    assertThat(d.detail()).contains(MODEL);
    assertThat(router.stats().rejectedByReason()).containsEntry(RejectReason.NO_CANDIDATES, 1L);
    assertThat(router.stats().inFlight()).isZero();
  }

  @Test
  void allReplicasDrainingIsNoCandidates() {
    for (String id : new String[] {"r0", "r1", "r2"}) {
      router.onSnapshot(ready(id).state(ReplicaState.DRAINING).build());
    }

    RoutingDecision d = router.route(request("q-1", prompt(256, 1)).build());

    assertThat(d.reason()).isEqualTo(RejectReason.NO_CANDIDATES);
  }

  @Test
  void noReplicaServingTheModelIsNoCandidates() {
    router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("r0").model("other").build());

    RoutingDecision d = router.route(request("q-1", prompt(256, 1)).build());

    assertThat(d.reason()).isEqualTo(RejectReason.NO_CANDIDATES);
  }

  // ---------------------------------------------------------------------------------- builder

  static Stream<Arguments> optionsSetTwice() {
    ManualTicker t = new ManualTicker();
    return Stream.of(
        Arguments.of("policy", (Consumer<Router.Builder>) b -> b.policy("round-robin")),
        Arguments.of("random", (Consumer<Router.Builder>) b -> b.seed(1).seed(2)),
        Arguments.of("ticker", (Consumer<Router.Builder>) b -> b.ticker(t).ticker(t)),
        Arguments.of("blockSizeTokens",
            (Consumer<Router.Builder>) b -> b.blockSizeTokens(16).blockSizeTokens(32)),
        Arguments.of("indexBudgetBytes",
            (Consumer<Router.Builder>) b -> b.indexBudgetBytes(1 << 20).indexBudgetBytes(1 << 21)),
        Arguments.of("costModel", (Consumer<Router.Builder>) b -> b.costModel(CostModel.defaults())
            .costModel(CostModel.defaults())),
        Arguments.of("peerRouters", (Consumer<Router.Builder>) b -> b.peerRouters(1).peerRouters(1)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("optionsSetTwice")
  void builderOptionsSetTwiceThrowIllegalState(String option, Consumer<Router.Builder> twice) {
    assertThatIllegalStateException().isThrownBy(() -> twice.accept(builder()))
        .withMessage(option + ": already set (expected: each builder option set once)");
  }

  @Test
  void aRejectedBuilderValueLeavesTheOptionUnset() {
    Router.Builder b = builder();
    assertThatIllegalArgumentException().isThrownBy(() -> b.blockSizeTokens(0));
    assertThatIllegalArgumentException().isThrownBy(() -> b.leaseTimeout(java.time.Duration.ZERO));

    Router router = b.blockSizeTokens(32).leaseTimeout(java.time.Duration.ofSeconds(5)).build();

    assertThat(router.blockSizeTokens()).isEqualTo(32);
  }

  static Stream<Arguments> badBuilderValues() {
    return Stream.of(
        Arguments.of((ThrowingCallable) () -> Router.newBuilder().blockSizeTokens(0),
            "blockSizeTokens: 0 (expected: >= 1)"),
        Arguments.of((ThrowingCallable) () -> Router.newBuilder().indexBudgetBytes(65_535),
            "indexBudgetBytes: 65535 (expected: >= 65536)"),
        Arguments.of((ThrowingCallable) () -> Router.newBuilder().peerRouters(-1),
            "peerRouters: -1 (expected: >= 0)"),
        Arguments.of((ThrowingCallable) () -> Router.newBuilder().defaultReplicaCacheTokens(0),
            "defaultReplicaCacheTokens: 0 (expected: >= 1)"),
        Arguments.of((ThrowingCallable) () -> Router.newBuilder().indexWriteBufferLimit(0),
            "indexWriteBufferLimit: 0 (expected: >= 1)"),
        Arguments.of((ThrowingCallable) () -> Router.newBuilder()
                .leaseTimeout(java.time.Duration.ZERO),
            "leaseTimeout: PT0S (expected: between 1 ms and PT720H)"),
        Arguments.of((ThrowingCallable) () -> Router.newBuilder()
                .leaseTimeout(java.time.Duration.ofSeconds(Long.MAX_VALUE)),
            "leaseTimeout: PT2562047788015215H30M7S (expected: between 1 ms and PT720H)"),
        Arguments.of((ThrowingCallable) () -> Router.newBuilder()
                .costTerms(java.util.List.of(CostTerms.queue(), CostTerms.queue())).build(),
            "costTerms: [queue, queue] (expected: each term name once)"),
        Arguments.of((ThrowingCallable) () -> Router.newBuilder().costTerms(java.util.List.of()),
            "costTerms: [] (expected: at least one scorer)"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("badBuilderValues")
  void badBuilderValuesThrowIllegalArgumentNamingTheValueAndTheExpectation(
      ThrowingCallable call, String message) {
    assertThatIllegalArgumentException().isThrownBy(call).withMessage(message);
  }

  @Test
  void nullDurationsThrowNullPointerAsDocumented() {
    assertThatNullPointerException().isThrownBy(() -> Router.newBuilder().leaseTimeout(null))
        .withMessage("leaseTimeout: null (expected: between 1 ms and PT720H)");
    assertThatNullPointerException().isThrownBy(() -> Admission.newBuilder().minRetryAfter(null))
        .withMessage("minRetryAfter: null (expected: >= 0)");
    assertThatNullPointerException()
        .isThrownBy(() -> Admission.newBuilder().queueLimit(null, java.time.Duration.ZERO))
        .withMessage("priority: null (expected: non-null)");
  }

  @Test
  void aPolicyInstanceAndARegistryAreRejectedInEitherOrder() {
    RoutingPolicy instance = new LeastEstimatePolicy();
    RoutingPolicyRegistry registry = RoutingPolicyRegistry.newRegistry();

    assertThatIllegalStateException()
        .isThrownBy(() -> Router.newBuilder().registry(registry).policy(instance))
        .withMessageStartingWith("policy: an instance (expected: a policy name when a registry");
    assertThatIllegalStateException()
        .isThrownBy(() -> Router.newBuilder().policy(instance).registry(registry))
        .withMessageStartingWith("registry: set after a policy instance");
    assertThat(Router.newBuilder().registry(registry).policy("anything")).isNotNull();
  }

  @Test
  void indexBudgetAtTheMinimumIsAccepted() {
    Router r = builder().indexBudgetBytes(PrefixIndex.MIN_BUDGET_BYTES).ticker(ticker).build();

    assertThat(r.stats().indexBudgetBytes()).isEqualTo(64 * 1024);
  }

  @Test
  void unknownPolicyNameThrowsNamingThePolicyAndTheExpectedNames() {
    Router.Builder b = Router.newBuilder().policy("nope").registry(RoutingPolicyRegistry.newRegistry());

    assertThatIllegalArgumentException().isThrownBy(b::build)
        .withMessage("policy: nope (expected: one of [])");
  }
}
