package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateExplanation;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import org.junit.jupiter.api.Test;

/**
 * A later attempt routed while the earlier one is in flight (a hedge) goes to another replica, or
 * another pair, placed by the cost model; the same one only when nothing else is eligible.
 */
class AttemptPlacementTest {
  private final ManualTicker ticker = new ManualTicker();

  private Router router(RoutingPolicy policy) {
    return Router.newBuilder().policy(policy).ticker(ticker).seed(1).build();
  }

  /** r0 idle, r1 with 400 ms queued: the first attempt goes to r0, and r0 stays the cheaper. */
  private Router twoReplicas() {
    Router router = router(new LeastEstimatePolicy());
    router.onSnapshot(queued("r0", 0));
    router.onSnapshot(queued("r1", 400));
    return router;
  }

  @Test
  void aHedgeGoesToTheNextCheapestReplica() {
    Router router = twoReplicas();
    Request first = request("q-1", prompt(512, 1)).build();
    assertThat(router.route(first).replicaId()).isEqualTo("r0");
    assertThat(router.explain(first.nextAttempt()).candidate("r0").orElseThrow().verdict())
        .isEqualTo(CandidateExplanation.Verdict.INELIGIBLE);

    RoutingDecision hedge = router.route(first.nextAttempt());

    assertThat(hedge.replicaId()).isEqualTo("r1");
  }

  @Test
  void withNoOtherEligibleReplicaTheHedgeGoesWhereTheFirstIs() {
    Router router = router(new LeastEstimatePolicy());
    router.onSnapshot(queued("r0", 0));
    Request first = request("q-1", prompt(512, 1)).build();
    router.route(first);

    assertThat(router.route(first.nextAttempt()).replicaId()).isEqualTo("r0");
  }

  @Test
  void aRetryAfterTheFirstAttemptEndedIsPlacedByCostAlone() {
    Router router = twoReplicas();
    Request first = request("q-1", prompt(512, 1)).build();
    RoutingDecision d = router.route(first);
    router.onOutcome(outcome(first, d, OutcomeStatus.REPLICA_ERROR).build());

    assertThat(router.route(first.nextAttempt()).replicaId()).isEqualTo("r0");
  }

  @Test
  void aHedgedPairSharesNeitherReplicaWithTheFirst() {
    Router router = router(new LeastPairPolicy());
    router.onSnapshot(TestData.ready("P1").role(ReplicaRole.PREFILL).estimatedQueueDelayMillis(0)
        .build());
    router.onSnapshot(TestData.ready("P2").role(ReplicaRole.PREFILL).estimatedQueueDelayMillis(300)
        .build());
    router.onSnapshot(TestData.ready("D1").role(ReplicaRole.DECODE).build());
    router.onSnapshot(TestData.ready("D2").role(ReplicaRole.DECODE).build());
    Request first = request("q-1", PromptKey.unhashed(2_000)).build();
    RoutingDecision d = router.route(first);
    assertThat(d.prefillReplicaId()).contains("P1");

    RoutingDecision hedge = router.route(first.nextAttempt());

    assertThat(hedge.prefillReplicaId()).contains("P2");
    assertThat(hedge.replicaId()).isNotEqualTo(d.replicaId());
  }

  /** D1 shares P1's node, D2 is a rack away: the move makes D1 the cheaper decode replica. */
  @Test
  void withOnePrefillReplicaTheHedgedPairChangesItsDecodeReplica() {
    Router router = Router.newBuilder().policy(new LeastPairPolicy()).ticker(ticker).seed(1)
        .topology(Topology.newBuilder().place("P1", "node-a", "rack-1")
            .place("D1", "node-a", "rack-1").place("D2", "node-b", "rack-2").build())
        .build();
    router.onSnapshot(TestData.ready("P1").role(ReplicaRole.PREFILL).build());
    router.onSnapshot(TestData.ready("D1").role(ReplicaRole.DECODE).build());
    router.onSnapshot(TestData.ready("D2").role(ReplicaRole.DECODE).build());
    Request first = request("q-1", PromptKey.unhashed(2_000)).build();
    assertThat(router.route(first).replicaId()).isEqualTo("D1");

    RoutingDecision hedge = router.route(first.nextAttempt());

    assertThat(hedge.prefillReplicaId()).contains("P1");
    assertThat(hedge.replicaId()).isEqualTo("D2");
  }
}
