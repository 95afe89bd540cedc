package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateExplanation;
import io.github.kvroute.api.CandidateExplanation.Verdict;
import io.github.kvroute.api.DecisionExplanation;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.core.Router;
import io.github.kvroute.core.RouterStats;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@link Router#explain} on hybrid-cost over the worked placement of docs/cost-model.md (R0 holds all
 * 4,000 reusable tokens behind 300 ms, R1 nothing and idle, R2 half behind 100 ms; 0.06 ms per
 * missing token): the explanation names the choice route makes, with the same costs, and leaves the
 * router as it was.
 */
class ExplainTest {
  private static final String MODEL = "llama-3-70b";
  private final ManualTicker ticker = new ManualTicker();
  private final PromptKey prompt =
      PromptKey.ofTokens(TestRequests.tokens(4_000, 7), CacheNamespace.of(MODEL));

  private Router router() {
    CostModel model = CostModel.newBuilder().prefillOverheadMillis(0).prefillMillisPerToken(0.06)
        .build();
    Router router = Router.newBuilder().policy("hybrid-cost").costModel(model).ticker(ticker)
        .seed(7).build();
    String[] ids = {"R0", "R1", "R2"};
    double[] queues = {300, 0, 100};
    for (int i = 0; i < 3; i++) {
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId(ids[i]).model(MODEL)
          .observedAtNanos(ticker.read()).estimatedQueueDelayMillis(queues[i]).build());
    }
    router.onKvEvent(KvEvent.stored("R0", 0, prompt.blockHashes()));
    router.onKvEvent(KvEvent.stored("R2", 0,
        Arrays.copyOf(prompt.blockHashes(), prompt.blockCount() / 2)));
    return router;
  }

  private Request request(String id) {
    return Request.newBuilder().id(id).model(MODEL).prompt(prompt).maxOutputTokens(256).build();
  }

  @Test
  void theExplanationNamesRoutesChoiceWithTheSameCostsAndEveryCandidatesTerms() {
    try (Router router = router()) {
      DecisionExplanation e = router.explain(request("req-1"));
      RoutingDecision d = router.route(request("req-1"));

      assertThat(e.decision()).isEqualTo(d);
      assertThat(d.replicaId()).isEqualTo("R2");
      assertThat(e.candidates()).extracting(CandidateExplanation::replicaId)
          .containsExactly("R0", "R1", "R2");
      assertThat(e.candidates()).extracting(CandidateExplanation::verdict)
          .containsExactly(Verdict.CANDIDATE, Verdict.CANDIDATE, Verdict.CHOSEN);
      CandidateExplanation r2 = e.candidate("R2").orElseThrow();
      assertThat(r2.estimate()).isEqualTo(d.cost());
      assertThat(r2.score()).isEqualTo(d.score());
      assertThat(r2.matchedTokens()).isEqualTo(2_000);
      // the worked example's terms: queue plus the prefill of the missing tokens
      assertThat(e.candidate("R0").orElseThrow().estimate().millis("queue")).hasValue(300.0);
      assertThat(e.candidate("R0").orElseThrow().estimate().millis("prefill")).hasValue(0.0);
      assertThat(e.candidate("R1").orElseThrow().estimate().millis("prefill").getAsDouble())
          .isEqualTo(240.0, org.assertj.core.api.Assertions.within(1e-9));
      assertThat(r2.estimate().millis("queue")).hasValue(100.0);
      assertThat(r2.predictedTtftMillis())
          .isLessThan(e.candidate("R0").orElseThrow().predictedTtftMillis())
          .isLessThan(e.candidate("R1").orElseThrow().predictedTtftMillis());
    }
  }

  @Test
  void explainingLeavesTheRoutersStatsAndBooksUnchanged() {
    try (Router router = router()) {
      RouterStats before = router.stats();
      var replicasBefore = router.replicas();

      router.explain(request("req-1"));
      router.explain(request("req-1"));

      assertThat(router.stats()).isEqualTo(before);
      assertThat(router.replicas()).isEqualTo(replicasBefore);
      // the attempt was never recorded: routing it now is its first time
      assertThat(router.route(request("req-1")).isRouted()).isTrue();
      assertThat(router.stats().inFlight()).isEqualTo(1);
    }
  }

  @Test
  void routeExplainedRecordsTheDecisionLikeRouteAndExplainsIt() {
    try (Router explained = router(); Router plain = router()) {
      DecisionExplanation e = explained.routeExplained(request("req-1"));
      RoutingDecision d = plain.route(request("req-1"));

      assertThat(e.decision()).isEqualTo(d);
      assertThat(explained.stats()).isEqualTo(plain.stats());
      assertThat(e.candidate(d.replicaId()).orElseThrow().verdict()).isEqualTo(Verdict.CHOSEN);
    }
  }

  @Test
  void aDisaggregatedPairHasBothSidesChosen() {
    try (Router router = Router.newBuilder().policy("hybrid-cost").ticker(ticker).seed(1)
        .build()) {
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("P1").model(MODEL)
          .role(ReplicaRole.PREFILL).estimatedQueueDelayMillis(10).build());
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("P2").model(MODEL)
          .role(ReplicaRole.PREFILL).estimatedQueueDelayMillis(500).build());
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("D1").model(MODEL)
          .role(ReplicaRole.DECODE).kvBlocks(10, 1_000).kvBlockSizeTokens(16).build());
      Request r = Request.newBuilder().id("q-1").model(MODEL).prompt(PromptKey.unhashed(6_000))
          .build();

      DecisionExplanation e = router.explain(r);

      assertThat(e.decision()).isEqualTo(router.route(r));
      assertThat(e.candidates()).extracting(CandidateExplanation::verdict)
          .containsExactly(Verdict.CHOSEN, Verdict.CHOSEN, Verdict.CANDIDATE);
      assertThat(e.candidate("D1").orElseThrow().score()).isEqualTo(e.decision().score());
      assertThat(e.candidate("P1").orElseThrow().score()).isEmpty();
    }
  }
}
