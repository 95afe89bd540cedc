package io.github.kvroute.policies;

import io.github.kvroute.api.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.api.UpdateResult;
import io.github.kvroute.core.PairSelection;
import io.github.kvroute.core.Router;
import io.github.kvroute.core.RouterStats;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** hybrid-cost on a disaggregated fleet: prefill and decode pools, no whole-request replicas. */
class HybridCostDisaggregatedTest {
  private static final String MODEL = "m";

  private final ManualTicker ticker = new ManualTicker();
  private final List<RequestRef> orphaned = new CopyOnWriteArrayList<>();
  private final Router router = Router.newBuilder()
      .registry(RoutingPolicyRegistry.load(getClass().getClassLoader())).policy("hybrid-cost")
      .ticker(ticker).seed(1)
      .listener(new RouterListener() {
        @Override
        public void onOrphaned(String replicaId, long epoch, List<RequestRef> attempts) {
          orphaned.addAll(attempts);
        }
      })
      .build();

  private static ReplicaSnapshot.Builder replica(String id, ReplicaRole role) {
    return ReplicaSnapshot.newBuilder().replicaId(id).model(MODEL).role(role);
  }

  /** P1 idle, P2 queued; D1 nearly out of KV, D2 with room. */
  HybridCostDisaggregatedTest() {
    router.onSnapshot(replica("P1", ReplicaRole.PREFILL).estimatedQueueDelayMillis(10).build());
    router.onSnapshot(replica("P2", ReplicaRole.PREFILL).estimatedQueueDelayMillis(500).build());
    router.onSnapshot(replica("D1", ReplicaRole.DECODE).estimatedQueueDelayMillis(0)
        .kvBlocks(990, 1_000).kvBlockSizeTokens(16).build());
    router.onSnapshot(replica("D2", ReplicaRole.DECODE).estimatedQueueDelayMillis(0)
        .kvBlocks(10, 1_000).kvBlockSizeTokens(16).build());
  }

  private final Request request = Request.newBuilder().id("q-1").model(MODEL)
      .prompt(PromptKey.unhashed(6_000)).build();

  @Test
  void prefillGoesToTheCheapestPrefillReplica_decodeWhereTheKvFits() {
    RoutingDecision d = router.route(request);

    assertThat(d.isRouted()).isTrue();
    assertThat(d.prefillReplicaId()).contains("P1");
    assertThat(d.replicaId()).isEqualTo("D2");
    // 10 ms queue + 20 + 0.035 x 6,000 prefill on P1, then a 6,000-token KV move of ~95 ms to D2
    assertThat(d.cost().totalMillis()).isCloseTo(10 + 20 + 0.035 * 6_000 + 95, within(1e-6));
    assertThat(d.cost().millis(PairSelection.TRANSFER_TERM).getAsDouble())
        .isCloseTo(95, within(1e-6));
  }

  @Test
  void theOutcomeOfAPairClosesBothSidesBooks() {
    RoutingDecision d = router.route(request);

    UpdateResult result = router.onOutcome(Outcome.newBuilder().requestId("q-1")
        .replicaId(d.replicaId()).epoch(d.epoch()).status(OutcomeStatus.SUCCESS).build());

    RouterStats stats = router.stats();
    assertThat(result).isEqualTo(UpdateResult.APPLIED);
    assertThat(stats.inFlight()).isZero();
    assertThat(stats.outcomesApplied()).isEqualTo(1);
  }

  @Test
  void aPrefillRestartOrphansThePair() {
    router.route(request);

    router.onSnapshot(replica("P1", ReplicaRole.PREFILL).epoch(2).state(ReplicaState.STARTING)
        .build());

    assertThat(orphaned).containsExactly(new RequestRef("q-1", 1));
    assertThat(router.stats().inFlight()).isZero();
    assertThat(router.stats().orphaned()).isEqualTo(1);
  }

  @Test
  void aDecodeStopOrphansThePair() {
    router.route(request);

    router.onSnapshot(replica("D2", ReplicaRole.DECODE).state(ReplicaState.STOPPED).build());

    assertThat(orphaned).containsExactly(new RequestRef("q-1", 1));
    assertThat(router.stats().inFlight()).isZero();
  }

  @Test
  void aPairReservesItsKvOnTheDecodeReplicaUntilItsFirstToken() {
    // D2 has 990 x 16 = 15,840 free tokens; each request needs 6,000 + 256 planned output
    RoutingDecision first = router.route(request);
    RoutingDecision second = router.route(request.toBuilder().id("q-2").build());
    RoutingDecision third = router.route(request.toBuilder().id("q-3").build());

    assertThat(first.replicaId()).isEqualTo("D2");
    assertThat(second.replicaId()).isEqualTo("D2");
    assertThat(third.isRouted()).isFalse();
    assertThat(third.reason()).isEqualTo(RejectReason.OVERLOADED);
    assertThat(third.detail()).contains("no decode replica can hold 6256 KV tokens");

    // the first's KV has arrived: D2's own reports count it from now on
    router.onFirstToken("q-1", 1, "D2", first.epoch());
    assertThat(router.route(request.toBuilder().id("q-4").build()).replicaId()).isEqualTo("D2");
  }

  @Test
  void withoutADecodePoolThereAreNoCandidates() {
    router.removeReplica("D1");
    router.removeReplica("D2");

    assertThat(router.route(request).isRouted()).isFalse();
  }
}
