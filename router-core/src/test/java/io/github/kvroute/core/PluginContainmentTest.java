package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.atLeastOnce;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.mockingDetails;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.Scorer;
import io.github.kvroute.api.TelemetrySource;
import io.github.kvroute.api.UpdateResult;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Host plugins that misbehave are contained: the router counts the failure and uses a safe fallback. */
class PluginContainmentTest {
  private final ManualTicker ticker = new ManualTicker();

  /** A policy answering with a fixed function of the context. */
  private static final class AnswerPolicy implements RoutingPolicy {
    private final Function<RoutingContext, RoutingDecision> answer;

    AnswerPolicy(Function<RoutingContext, RoutingDecision> answer) {
      this.answer = answer;
    }

    @Override
    public String name() {
      return "answer";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      return answer.apply(context);
    }
  }

  /** "busy" costs 300 ms more than "idle", "draining" is known but not a candidate. */
  private void fleet(Router router) {
    router.onSnapshot(queued("busy", 300));
    router.onSnapshot(queued("idle", 0));
    router.onSnapshot(ready("draining").state(ReplicaState.DRAINING).build());
  }

  static Stream<Arguments> badPolicies() {
    CandidateView ghost = CandidateView.newBuilder().replicaId("ghost").build();
    return Stream.of(
        Arguments.of("throws", new AnswerPolicy(c -> {
          throw new IllegalStateException("policy bug");
        })),
        Arguments.of("returns null", new AnswerPolicy(c -> null)),
        Arguments.of("routes to an unknown replica",
            new AnswerPolicy(c -> RoutingDecision.routed(ghost, CostBreakdown.empty()))),
        Arguments.of("routes to a draining replica", new AnswerPolicy(c -> RoutingDecision.routed(
            CandidateView.newBuilder().replicaId("draining").build(), CostBreakdown.empty()))),
        Arguments.of("routes to a candidate in another epoch",
            new AnswerPolicy(c -> RoutingDecision.routed(
                CandidateView.newBuilder().replicaId("busy").epoch(9).build(),
                CostBreakdown.empty()))));
  }

  @ParameterizedTest(name = "a policy that {0}")
  @MethodSource("badPolicies")
  void misbehavingPolicyFallsBackToLeastCost_andCountsAPluginFailure(
      String what, RoutingPolicy policy) {
    RouterListener listener = mock(RouterListener.class);
    Router router = Router.newBuilder().policy(policy).listener(listener).ticker(ticker).build();
    fleet(router);

    RoutingDecision d = router.route(request("q-1", prompt(1_000, 1)).build());

    assertThat(d.isRouted()).isTrue();
    assertThat(d.replicaId()).isEqualTo("idle");
    assertThat(d.epoch()).isZero();
    assertThat(d.cost().totalMillis()).isEqualTo(20 + 0.035 * 1_000);
    assertThat(router.stats().pluginFailures()).isEqualTo(1);
    assertThat(router.stats().routed()).isEqualTo(1);
    verify(listener).onPluginFailure(eq("policy answer"), any(RuntimeException.class));
    verify(listener).onDecision(any(Request.class), eq(d));
  }

  @Test
  void misbehavingPolicyOnAnEmptyFleetFallsBackToNoCandidates() {
    Router router = Router.newBuilder().policy(new AnswerPolicy(c -> null)).ticker(ticker).build();

    RoutingDecision d = router.route(request("q-1", prompt(1_000, 1)).build());

    assertThat(d.reason()).isEqualTo(io.github.kvroute.api.RejectReason.NO_CANDIDATES);
    assertThat(router.stats().pluginFailures()).isEqualTo(1);
  }

  @Test
  void mockedPolicyThatThrowsIsContainedOnEveryCall() {
    RoutingPolicy policy = mock(RoutingPolicy.class);
    when(policy.name()).thenReturn("mocked");
    when(policy.route(any())).thenThrow(new IllegalStateException("boom"));
    Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
    fleet(router);

    for (int i = 0; i < 3; i++) {
      assertThat(router.route(request("q-" + i, prompt(1_000, i)).build()).replicaId())
          .isEqualTo("idle");
    }
    assertThat(router.stats().pluginFailures()).isEqualTo(3);
  }

  @Test
  void policyThatThrowsFromOnOutcomeDoesNotStopTheOutcomeBeingApplied() {
    RoutingPolicy policy = mock(RoutingPolicy.class);
    when(policy.name()).thenReturn("mocked");
    when(policy.route(any())).thenAnswer(inv -> new LeastEstimatePolicy().route(inv.getArgument(0)));
    doThrow(new IllegalStateException("boom")).when(policy).onOutcome(any());
    Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
    fleet(router);
    Request r = request("q-1", prompt(1_000, 1)).build();
    RoutingDecision d = router.route(r);

    UpdateResult result = router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).build());

    assertThat(result).isEqualTo(UpdateResult.APPLIED);
    assertThat(router.stats().inFlight()).isZero();
    assertThat(router.stats().pluginFailures()).isEqualTo(1);
  }

  @Test
  void throwingListenerDoesNotBreakRoutingOrOutcomes() {
    RouterListener listener = mock(RouterListener.class);
    doThrow(new IllegalStateException("listener bug")).when(listener).onDecision(any(), any());
    doThrow(new IllegalStateException("listener bug")).when(listener).onOutcome(any(), any());
    doThrow(new IllegalStateException("listener bug")).when(listener)
        .onReplicaStateChanged(any(), any(Long.class), any(), any());
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).listener(listener)
        .ticker(ticker).build();
    fleet(router);
    Request r = request("q-1", prompt(1_000, 1)).build();

    RoutingDecision d = router.route(r);
    UpdateResult result = router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).build());

    assertThat(d.replicaId()).isEqualTo("idle");
    assertThat(result).isEqualTo(UpdateResult.APPLIED);
    assertThat(router.stats().pluginFailures()).isEqualTo(3 + 1 + 1);
    assertThat(router.route(request("q-2", prompt(1_000, 2)).build()).isRouted()).isTrue();
    verify(listener, atLeastOnce()).onDecision(any(), any());
  }

  @Test
  void throwingAdmissionControllerFailsOpen() {
    AdmissionController admission = mock(AdmissionController.class);
    when(admission.admit(any(), any())).thenThrow(new IllegalStateException("admission bug"));
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).admission(admission)
        .ticker(ticker).build();
    fleet(router);

    RoutingDecision d = router.route(request("q-1", prompt(1_000, 1)).ttftBudget(
        java.time.Duration.ofMillis(1)).build());

    assertThat(d.isRouted()).isTrue();
    assertThat(d.replicaId()).isEqualTo("idle");
    assertThat(router.stats().pluginFailures()).isEqualTo(1);
    assertThat(router.stats().inFlight()).isEqualTo(1);
  }

  @Test
  void admissionControllerSwappingInANonCandidateFailsOpenToTheProposal() {
    CandidateView ghost = CandidateView.newBuilder().replicaId("ghost").build();
    AdmissionController admission =
        (context, proposed) -> RoutingDecision.routed(ghost, CostBreakdown.empty());
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).admission(admission)
        .ticker(ticker).build();
    fleet(router);

    RoutingDecision d = router.route(request("q-1", prompt(1_000, 1)).build());

    assertThat(d.replicaId()).isEqualTo("idle");
    assertThat(router.stats().pluginFailures()).isEqualTo(1);
  }

  @Test
  void throwingScorerCountsZeroForItsTerm() {
    Scorer broken = mock(Scorer.class);
    when(broken.name()).thenReturn("broken");
    when(broken.costMillis(any(), any())).thenThrow(new IllegalStateException("scorer bug"));
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = Router.newBuilder().policy(policy)
        .costTerms(List.of(CostTerms.queue(), broken, CostTerms.prefill())).ticker(ticker).build();
    fleet(router);

    RoutingDecision d = router.route(request("q-1", prompt(1_000, 1)).build());

    CostBreakdown idle = policy.estimates.get("idle");
    assertThat(idle.asMap()).containsOnlyKeys("queue", "broken", "prefill");
    assertThat(idle.millis("broken")).hasValue(0.0);
    assertThat(idle.totalMillis()).isEqualTo(0 + 20 + 0.035 * 1_000);
    assertThat(policy.estimates.get("busy").totalMillis()).isEqualTo(300 + 20 + 0.035 * 1_000);
    assertThat(d.replicaId()).isEqualTo("idle");
    long scorerCalls = mockingDetails(broken).getInvocations().stream()
        .filter(i -> i.getMethod().getName().equals("costMillis")).count();
    assertThat(scorerCalls).isGreaterThanOrEqualTo(2);
    assertThat(router.stats().pluginFailures()).isEqualTo(scorerCalls);
  }

  private static Scorer constant(
      String name, java.util.function.ToDoubleFunction<CandidateView> f) {
    return new Scorer() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public double costMillis(Request request, CandidateView candidate) {
        return f.applyAsDouble(candidate);
      }
    };
  }

  @ParameterizedTest(name = "scorer returning {0}")
  @MethodSource("nanOrNegative")
  void scorerReturningNanOrANegativeValueIsAPluginFailureAndCountsZero(double value) {
    Scorer odd = constant("odd", c -> value);
    RouterListener listener = mock(RouterListener.class);
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = Router.newBuilder().policy(policy).costTerms(List.of(CostTerms.queue(), odd))
        .listener(listener).ticker(ticker).build();
    fleet(router);

    router.route(request("q-1", prompt(1_000, 1)).build());

    assertThat(policy.estimates.get("busy").millis("odd")).hasValue(0.0);
    assertThat(policy.estimates.get("busy").totalMillis()).isEqualTo(300.0);
    assertThat(router.stats().pluginFailures()).isPositive();
    verify(listener, atLeastOnce())
        .onPluginFailure(eq("scorer odd"), any(IllegalStateException.class));
  }

  static Stream<Double> nanOrNegative() {
    return Stream.of(Double.NaN, Double.NEGATIVE_INFINITY, -5.0);
  }

  @Test
  void scorerReturningPositiveInfinityVetoesTheCandidate() {
    Scorer veto =
        constant("veto", c -> c.replicaId().equals("idle") ? Double.POSITIVE_INFINITY : 0);
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy())
        .costTerms(List.of(CostTerms.queue(), veto)).ticker(ticker).build();
    fleet(router);

    for (int i = 0; i < 20; i++) {
      RoutingDecision d = router.route(request("q-" + i, prompt(1_000, i)).build());
      assertThat(d.replicaId()).isEqualTo("busy");
    }
    assertThat(router.stats().pluginFailures()).isZero();
  }

  @Test
  void everyCandidateVetoedIsNoCandidates() {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy())
        .costTerms(List.of(constant("veto", c -> Double.POSITIVE_INFINITY))).ticker(ticker).build();
    fleet(router);

    RoutingDecision d = router.route(request("q-1", prompt(1_000, 1)).build());

    assertThat(d.reason()).isEqualTo(io.github.kvroute.api.RejectReason.NO_CANDIDATES);
  }

  /** Throws {@code t} even when it is a checked exception, as some JVM languages do. */
  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
    throw (T) t;
  }

  static Stream<Throwable> recoverableThrowables() {
    return Stream.of(new AssertionError("assert"), new StackOverflowError(),
        new java.io.IOException("sneaky checked"), new NoClassDefFoundError("missing"));
  }

  @ParameterizedTest(name = "a policy throwing {0}")
  @MethodSource("recoverableThrowables")
  void policyThrowingAnyRecoverableThrowableIsContained(Throwable thrown) {
    Router router = Router.newBuilder().policy(new AnswerPolicy(c -> {
      throw sneaky(thrown);
    })).ticker(ticker).build();
    fleet(router);

    RoutingDecision d = router.route(request("q-1", prompt(1_000, 1)).build());

    assertThat(d.replicaId()).isEqualTo("idle");
    assertThat(router.stats().pluginFailures()).isEqualTo(1);
    assertThat(router.stats().routed()).isEqualTo(1);
  }

  @ParameterizedTest(name = "scorer, admission and listener throwing {0}")
  @MethodSource("recoverableThrowables")
  void scorerAdmissionAndListenerThrowingAnyRecoverableThrowableAreContained(Throwable thrown) {
    AdmissionController admission = (c, d) -> {
      throw sneaky(thrown);
    };
    Scorer scorer = constant("thrower", c -> {
      throw sneaky(thrown);
    });
    RouterListener listener = new RouterListener() {
      @Override
      public void onDecision(Request request, RoutingDecision decision) {
        throw sneaky(thrown);
      }

      @Override
      public void onOutcome(Outcome outcome, UpdateResult result) {
        throw sneaky(thrown);
      }
    };
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).admission(admission)
        .costTerms(List.of(CostTerms.queue(), scorer)).listener(listener).ticker(ticker).build();
    fleet(router);
    Request r = request("q-1", prompt(1_000, 1)).build();

    RoutingDecision d = router.route(r);

    assertThat(d.replicaId()).isEqualTo("idle");
    assertThat(router.stats().inFlight()).isEqualTo(1);
    assertThat(router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).build()))
        .isEqualTo(UpdateResult.APPLIED);
    assertThat(router.stats().inFlight()).isZero();
  }

  @Test
  void aFatalErrorFromThePolicyIsRethrownWithNothingRecorded() {
    Router router = Router.newBuilder().policy(new AnswerPolicy(c -> {
      throw new OutOfMemoryError("simulated");
    })).ticker(ticker).build();
    fleet(router);

    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> router.route(request("q-1", prompt(1_000, 1)).build()))
        .isInstanceOf(OutOfMemoryError.class);
    assertThat(router.stats().inFlight()).isZero();
    assertThat(router.stats().decisions()).isZero();
  }

  @Test
  void aFatalErrorFromTheListenerLeavesNoLeaseForTheDecisionTheHostNeverGot() {
    RouterListener listener = new RouterListener() {
      @Override
      public void onDecision(Request request, RoutingDecision decision) {
        throw new OutOfMemoryError("simulated");
      }
    };
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).listener(listener)
        .ticker(ticker).build();
    fleet(router);
    Request r = request("q-1", prompt(1_000, 1)).build();

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> router.route(r))
        .isInstanceOf(OutOfMemoryError.class);

    assertThat(router.stats().inFlight()).isZero();
    assertThat(router.stats().routed()).isZero();
    assertThat(router.replicas()).allSatisfy(rs -> assertThat(rs.inFlightRequests()).isZero());
  }

  @Test
  void throwingTelemetrySourceIsContainedAtBuildAndAtClose() throws Exception {
    TelemetrySource failsToSubscribe = sink -> {
      throw new IllegalStateException("cannot subscribe");
    };
    AutoCloseable handle = mock(AutoCloseable.class);
    doThrow(new IllegalStateException("cannot close")).when(handle).close();
    TelemetrySource failsToClose = sink -> handle;
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .telemetrySources(List.of(failsToSubscribe, failsToClose)).build();
    assertThat(router.stats().pluginFailures()).isEqualTo(1);

    router.close();

    verify(handle).close();
    assertThat(router.stats().pluginFailures()).isEqualTo(2);
    fleet(router);
    assertThat(router.route(request("q-1", prompt(1_000, 1)).build()).isRouted()).isTrue();
  }

  @Test
  void outcomeOfAnAttemptRoutedByTheFallbackIsAppliedNormally() {
    Router router = Router.newBuilder().policy(new AnswerPolicy(c -> null)).ticker(ticker).build();
    fleet(router);
    Request r = request("q-1", prompt(1_000, 1)).build();
    RoutingDecision d = router.route(r);

    Outcome o = outcome(r, d, OutcomeStatus.SUCCESS).build();

    assertThat(router.onOutcome(o)).isEqualTo(UpdateResult.APPLIED);
    assertThat(router.stats().inFlight()).isZero();
  }
}
