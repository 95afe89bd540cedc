package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.github.kvroute.api.BreakerState;
import io.github.kvroute.api.CandidateExplanation;
import io.github.kvroute.api.CandidateExplanation.Verdict;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.DecisionExplanation;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.Scorer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What {@link Router#explain} says of each replica, and what it leaves alone. */
class RouterExplainTest {
  private final ManualTicker ticker = new ManualTicker();

  private static Scorer vetoOn(String replicaId) {
    return new Scorer() {
      @Override
      public String name() {
        return "veto";
      }

      @Override
      public double costMillis(Request request, CandidateView candidate) {
        return candidate.replicaId().equals(replicaId) ? Double.POSITIVE_INFINITY : 0;
      }
    };
  }

  @Test
  void everyKnownReplicaIsExplainedWithItsVerdictAndReason() {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .costTerms(List.of(CostTerms.queue(), vetoOn("vetoed"))).build();
    router.onSnapshot(ready("draining").state(ReplicaState.DRAINING).build());
    router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("other").model("another-model")
        .build());
    router.onSnapshot(ready("v2").modelVersion("v2").build());
    Request r = request("q-1", io.github.kvroute.api.PromptKey.ofTokens(TestData.tokens(256, 1),
        io.github.kvroute.api.CacheNamespace.of(TestData.MODEL, "v1", null))).modelVersion("v1")
        .build();
    router.onSnapshot(ready("busy").modelVersion("v1").estimatedQueueDelayMillis(300).build());
    router.onSnapshot(ready("idle").modelVersion("v1").estimatedQueueDelayMillis(0).build());
    router.onSnapshot(ready("vetoed").modelVersion("v1").build());

    DecisionExplanation e = router.explain(r);

    assertThat(e.decision().replicaId()).isEqualTo("idle");
    assertThat(e.candidates()).extracting(CandidateExplanation::replicaId)
        .containsExactly("busy", "draining", "idle", "other", "v2", "vetoed");
    assertThat(e.candidates()).extracting(CandidateExplanation::verdict).containsExactly(
        Verdict.CANDIDATE, Verdict.INELIGIBLE, Verdict.CHOSEN, Verdict.INELIGIBLE,
        Verdict.INELIGIBLE, Verdict.VETOED);
    assertThat(e.candidates()).extracting(CandidateExplanation::reason).containsExactly(
        "", "state DRAINING", "", "serves model another-model, not llama-3-70b",
        "serves version v2, not v1", "vetoed by veto");
    assertThat(e.candidate("busy").orElseThrow().estimate())
        .isEqualTo(CostBreakdown.newBuilder().add("queue", 300).add("veto", 0).build());
    assertThat(e.candidate("vetoed").orElseThrow().predictedTtftMillis()).isInfinite();
    assertThat(e.candidate("other").orElseThrow().predictedTtftMillis()).isNaN();
  }

  @Test
  void anOpenBreakerIsIneligible_andExplainingAtTheEndOfTheWaitTakesNoProbe() {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .breaker(BreakerConfig.newBuilder().consecutiveFailures(1)
            .openDuration(Duration.ofSeconds(10)).halfOpenProbes(1).build())
        .build();
    router.onSnapshot(queued("r0", 0));
    router.onSnapshot(queued("r1", 500));
    Request failing = request("q-1", prompt(256, 1)).build();
    RoutingDecision d = router.route(failing);
    router.onOutcome(outcome(failing, d, OutcomeStatus.REPLICA_ERROR).build());

    assertThat(router.explain(request("q-2", prompt(256, 2)).build()).candidate("r0")
        .orElseThrow().reason()).isEqualTo("breaker OPEN");

    ticker.advanceMillis(10_000);
    router.onSnapshot(queued("r0", 0));
    for (int i = 0; i < 3; i++) {
      assertThat(router.explain(request("q-2", prompt(256, 2)).build()).decision().replicaId())
          .as("the probe place stays free").isEqualTo("r0");
    }
    assertThat(router.fleet().get("r0").breaker.state()).isEqualTo(BreakerState.OPEN);
    assertThat(router.route(request("q-2", prompt(256, 2)).build()).replicaId()).isEqualTo("r0");
    assertThat(router.fleet().get("r0").breaker.state()).isEqualTo(BreakerState.HALF_OPEN);
  }

  @Test
  void aListenerMayExplainFromInsideARoute() {
    AtomicReference<DecisionExplanation> seen = new AtomicReference<>();
    Router[] router = new Router[1];
    router[0] = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .listener(new RouterListener() {
          @Override
          public void onDecision(Request request, RoutingDecision decision) {
            seen.set(router[0].explain(request("other", prompt(64, 9)).build()));
          }
        }).build();
    router[0].onSnapshot(queued("busy", 300));
    router[0].onSnapshot(queued("idle", 0));

    RoutingDecision d = router[0].route(request("q-1", prompt(256, 1)).build());

    assertThat(d.replicaId()).isEqualTo("idle");
    assertThat(seen.get().decision().replicaId()).isEqualTo("idle");
    assertThat(router[0].stats().inFlight()).isEqualTo(1);
  }

  @Test
  void anEmptyFleetIsExplainedAsNoCandidates_andABadPromptThrows() {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker).build();

    DecisionExplanation e = router.explain(request("q-1", prompt(256, 1)).build());

    assertThat(e.decision().isRouted()).isFalse();
    assertThat(e.candidates()).isEmpty();
    Request badBlocks = request("q-2",
        PromptKey.ofTokens(TestData.tokens(64, 1), 32, TestData.NS)).build();
    assertThatIllegalArgumentException().isThrownBy(() -> router.explain(badBlocks))
        .withMessageContaining("request.prompt.blockSizeTokens: 32");
  }
}
