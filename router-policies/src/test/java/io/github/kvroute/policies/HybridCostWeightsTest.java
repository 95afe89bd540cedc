package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.Router;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Weights shape hybrid-cost's ranking, never the predicted TTFT its decisions carry: admission judges
 * the prediction, the score explains the choice.
 */
class HybridCostWeightsTest {
  private static final String MODEL = "llama-3-70b";
  /** 1,000 tokens: 20 + 0.035 x 1,000 = 55 ms of prefill on an empty cache. */
  private static final PromptKey PROMPT = PromptKey.ofTokens(TestRequests.tokens(1_000, 3),
      CacheNamespace.of(MODEL));

  @Test
  void admissionJudgesThePredictedTtftNotTheWeightedScore() {
    ManualTicker ticker = new ManualTicker();
    Router router = Router.newBuilder().policy("hybrid-cost", Map.of("queue_weight", "3"))
        .ticker(ticker).seed(1).build();
    router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("r0").model(MODEL)
        .estimatedQueueDelayMillis(300).build());
    // predicted TTFT 300 + 55 = 355 ms fits 500 ms; the ranking score 3 x 300 + 55 = 955 would not
    Request request = Request.newBuilder().id("q-1").model(MODEL).prompt(PROMPT)
        .ttftBudget(Duration.ofMillis(500)).build();

    RoutingDecision d = router.route(request);

    assertThat(d.isRouted()).as(d.toString()).isTrue();
    assertThat(d.cost().totalMillis()).isCloseTo(355, within(1e-9));
    assertThat(d.cost().millis("queue")).hasValue(300.0);
    assertThat(d.score()).hasValue(955.0);
  }

  @Test
  void theDecisionCarriesTheEstimateAndTheWeightedScoreApart() {
    RoutingPolicy policy = Policies.create("hybrid-cost",
        Map.of("queue_weight", "3", "prefill_weight", "0.5", "externality", "none"));
    CandidateView view = CandidateView.newBuilder().replicaId("a").estimatedQueueMillis(100).build();
    RoutingContext ctx = FixedRoutingContext.of(TestRequests.request(1_000, 1), List.of(view), 1);

    RoutingDecision d = policy.route(ctx);

    assertThat(d.cost()).isEqualTo(ctx.estimate(view));
    assertThat(d.score().getAsDouble()).isCloseTo(3 * 100 + 0.5 * 55, within(1e-9));
  }

  @Test
  void aDisaggregatedPairCarriesItsUnweightedPrediction() {
    RoutingPolicy policy = Policies.create("hybrid-cost", Map.of("transfer_weight", "4"));
    CandidateView prefill = CandidateView.newBuilder().replicaId("p").role(ReplicaRole.PREFILL)
        .estimatedQueueMillis(10).build();
    CandidateView decode = CandidateView.newBuilder().replicaId("d").role(ReplicaRole.DECODE)
        .kvTransferMillis(95).build();
    RoutingContext ctx =
        FixedRoutingContext.of(TestRequests.request(1_000, 1), List.of(prefill, decode), 1);

    RoutingDecision d = policy.route(ctx);

    assertThat(d.cost().totalMillis()).isCloseTo(10 + 55 + 95, within(1e-9));
    assertThat(d.score().getAsDouble()).isCloseTo(10 + 55 + 4 * 95, within(1e-9));
  }

  @Test
  void formerOptionNamesAreDeprecatedAliases() {
    CandidateView adapterMissing = CandidateView.newBuilder().replicaId("a")
        .adapterLoadMillis(800).build();
    CandidateView busy = CandidateView.newBuilder().replicaId("b").estimatedQueueMillis(500).build();
    RoutingContext ctx =
        FixedRoutingContext.of(TestRequests.request(1_000, 1), List.of(adapterMissing, busy), 1);

    assertThat(Policies.create("hybrid-cost", Map.of("load_weight", "0.5")).route(ctx).replicaId())
        .isEqualTo("a");
    assertThat(Policies.create("hybrid-cost", Map.of("transfer_weight", "0.5")).route(ctx)
        .replicaId()).isEqualTo("a");
    assertThat(Policies.create("hybrid-cost", Map.of()).route(ctx).replicaId()).isEqualTo("b");
    assertThat(Policies.create("hybrid-cost", Map.of("kv_weight", "2")).route(ctx).replicaId())
        .isEqualTo("b");
  }

  @Test
  void settingANameAndItsDeprecatedAliasIsAnError() {
    ConfigOrError<RoutingPolicy> both = Policies.tryCreate("hybrid-cost",
        Map.of("transfer_weight", "2", "load_weight", "3"));

    assertThat(both.isOk()).isFalse();
    assertThat(both.error()).isEqualTo("load_weight: 3 (expected: unset when transfer_weight is"
        + " set; it is that option's deprecated name)");
  }

  /**
   * By default the staleness risk is left out of the ranking, but not out of the prediction: "a"
   * shows 100 ms of queue and a report 1 s old with 40 unseen requests per second of 10 ms each
   * (risk 40 x 1 x 10 = 400 ms on a busy replica); "b" shows 300 ms and no unseen traffic.
   */
  @Test
  void theStalenessRiskRanksAtZeroByDefaultAndStillCountsInThePrediction() {
    CandidateView a = CandidateView.newBuilder().replicaId("a").estimatedQueueMillis(100)
        .snapshotAgeMillis(1_000).unseenArrivalsPerSecond(40).meanRequestCostMillis(10).build();
    CandidateView b = CandidateView.newBuilder().replicaId("b").estimatedQueueMillis(300).build();
    RoutingContext ctx = FixedRoutingContext.of(TestRequests.request(1_000, 1), List.of(a, b), 1);

    RoutingDecision byDefault =
        Policies.create("hybrid-cost", Map.of("externality", "none")).route(ctx);
    RoutingDecision withRisk = Policies.create("hybrid-cost",
        Map.of("externality", "none", "risk_weight", "1")).route(ctx);

    assertThat(byDefault.replicaId()).isEqualTo("a");
    assertThat(byDefault.score().getAsDouble()).isCloseTo(100 + 55, within(1e-9));
    assertThat(byDefault.cost().millis("risk")).hasValue(400.0);
    assertThat(byDefault.cost().totalMillis()).isCloseTo(100 + 55 + 400, within(1e-9));
    assertThat(withRisk.replicaId()).as("555 ms against 355 ms").isEqualTo("b");
  }
}
