package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pair choice: transfer over the pair's link, and decode readiness. */
class PairSelectionTest {
  private final Request request = Request.newBuilder().id("q").model("model")
      .prompt(PromptKey.unhashed(6_000)).maxOutputTokens(500).build();

  private static CandidateView prefill(String id, double queueMillis) {
    return CandidateView.newBuilder().replicaId(id).role(ReplicaRole.PREFILL)
        .estimatedQueueMillis(queueMillis).build();
  }

  private static CandidateView decode(String id, long freeKvTokens) {
    return CandidateView.newBuilder().replicaId(id).role(ReplicaRole.DECODE)
        .freeKvTokens(freeKvTokens).build();
  }

  @Test
  void theBestPrefillWithAPoorLinkLosesToASlowerPrefillNextToTheDecode() {
    // p-fast: idle but two racks away from the only decode with room (760 ms move);
    // p-near: 100 ms of queue on the decode's own node (95 ms move)
    Topology topology = Topology.newBuilder().place("p-fast", "n1", "r1")
        .place("p-near", "n3", "r2").place("d", "n3", "r2").build();
    RoutingContext ctx = RoutingContexts.fixed(request,
        List.of(prefill("p-fast", 0), prefill("p-near", 100), decode("d", 100_000)),
        RandomSource.seeded(1), 0, CostModel.defaults(), topology);

    RoutingDecision d = PairSelection.leastCost(ctx, ctx::estimateMillis, 1.0);

    assertThat(d.prefillReplicaId()).contains("p-near");
    // 100 ms queue + 20 + 0.035 x 6,000 = 230 prefill, + 95 ms move
    assertThat(d.cost().totalMillis()).isCloseTo(100 + 230 + 95, within(1e-6));
    assertThat(d.cost().millis(PairSelection.TRANSFER_TERM).getAsDouble())
        .isCloseTo(95, within(1e-6));
  }

  @Test
  void aDecodeReplicaThatCannotHoldTheRequestIsNeverPaired() {
    // 6,000 prompt + 500 output = 6,500 tokens; d-full has 6,499 free
    RoutingContext ctx = RoutingContexts.fixed(request,
        List.of(prefill("p", 0), decode("d-full", 6_499), decode("d-room", 6_500)),
        RandomSource.seeded(1), 0, CostModel.defaults());

    RoutingDecision d = PairSelection.leastCost(ctx, ctx::estimateMillis, 1.0);

    assertThat(d.replicaId()).isEqualTo("d-room");
  }

  @Test
  void withNoDecodeReadyTheRequestIsRejectedBeforeItsPrefill() {
    RoutingContext ctx = RoutingContexts.fixed(request,
        List.of(prefill("p", 0), decode("d", 1_000)), RandomSource.seeded(1), 0,
        CostModel.defaults());

    RoutingDecision d = PairSelection.leastCost(ctx, ctx::estimateMillis, 1.0);

    assertThat(d.isRouted()).isFalse();
    assertThat(d.reason()).isEqualTo(RejectReason.OVERLOADED);
    assertThat(d.detail()).contains("no decode replica can hold 6500 KV tokens", "never");
    assertThat(d.retryAfter()).isEmpty(); // nothing says when KV will be freed there
  }

  @Test
  void aDecodeReplicaFreeingKvInTimeIsReady_theDesignsExample() {
    // 4,000 free, 6,500 needed: a deficit of 2,500 at 5,000 tokens/s fits in 500 ms
    CandidateView d = CandidateView.newBuilder().replicaId("d").role(ReplicaRole.DECODE)
        .snapshot(ReplicaSnapshot.newBuilder().replicaId("d").model("model")
            .role(ReplicaRole.DECODE).build())
        .freeKvTokens(4_000).build();

    assertThat(DecodeFit.waitMillis(request, d, 5_000)).isCloseTo(500, within(1e-9));
    assertThat(DecodeFit.waitMillis(request, d, 0)).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(DecodeFit.waitMillis(request, decode("d2", 6_500), 0)).isZero();
  }

  @Test
  void theRetryAfterIsHowMuchLongerTheSoonestDecodeNeedsThanTheSoonestPrefill() {
    RoutingContext base = RoutingContexts.fixed(request,
        List.of(prefill("p", 0), decode("d", 1_000)), RandomSource.seeded(1), 0,
        CostModel.defaults());
    RoutingContext ctx = new DecodeReadyIn(base, 900);

    RoutingDecision d = PairSelection.noneReady(ctx);

    // prefill 20 + 0.035 x 6,000 = 230 ms; the decode is ready in 900: retry after 670 ms
    assertThat(d.retryAfter()).contains(Duration.ofMillis(670));
  }

  /** {@code base} with every decode replica ready in a fixed time (as a measured freeing rate gives). */
  private record DecodeReadyIn(RoutingContext base, double millis)
      implements ForwardingContext {
    @Override
    public double decodeWaitMillis(CandidateView decode) {
      return millis;
    }
  }
}
