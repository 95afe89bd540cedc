package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RoutingDecisionTest {
  private static final CandidateView DECODE = CandidateView.newBuilder()
      .replicaId("decode-1").epoch(4).role(ReplicaRole.DECODE).matched(2, 32).build();
  private static final CandidateView PREFILL = CandidateView.newBuilder()
      .replicaId("prefill-1").epoch(7).role(ReplicaRole.PREFILL).matched(5, 80).build();
  private static final CostBreakdown COST =
      CostBreakdown.newBuilder().add("queue", 10).add("prefill", 30).build();

  /** Everything but the cost of a routed decision. */
  private static List<Object> nonCost(RoutingDecision d) {
    return List.of(d.isRouted(), d.replicaId(), d.epoch(), d.prefillReplicaId(), d.prefillEpoch(),
        d.matchedTokens(), d.detail(), d.retryAfter());
  }

  @Test
  void equalityIsByValue() {
    new com.google.common.testing.EqualsTester()
        .addEqualityGroup(RoutingDecision.routed(DECODE, COST), RoutingDecision.routed(DECODE, COST))
        .addEqualityGroup(RoutingDecision.routed(PREFILL, COST))
        .addEqualityGroup(RoutingDecision.routed(DECODE, CostBreakdown.of("queue", 10)))
        .addEqualityGroup(RoutingDecision.routedPair(PREFILL, DECODE, COST))
        .addEqualityGroup(RoutingDecision.rejected(RejectReason.DEADLINE, "late", null),
            RoutingDecision.rejected(RejectReason.DEADLINE, "late", null))
        .addEqualityGroup(RoutingDecision.rejected(RejectReason.DEADLINE, "late",
            Duration.ofMillis(20)))
        .addEqualityGroup(RoutingDecision.rejected(RejectReason.OVERLOADED, "late", null))
        .testEquals();
  }

  @Test
  void routedCopiesReplicaEpochAndMatchedTokensFromTheView() {
    RoutingDecision d = RoutingDecision.routed(DECODE, COST);

    assertThat(d.isRouted()).isTrue();
    assertThat(d.replicaId()).isEqualTo(DECODE.replicaId());
    assertThat(d.epoch()).isEqualTo(DECODE.epoch());
    assertThat(d.matchedTokens()).isEqualTo(DECODE.matchedTokens());
    assertThat(d.cost()).isSameAs(COST);
    assertThat(d.prefillReplicaId()).isEmpty();
    assertThat(d.prefillEpoch()).isEqualTo(-1);
    assertThat(d.detail()).isEmpty();
    assertThat(d.retryAfter()).isEmpty();
    assertThat(d.toString()).contains("decode-1");
  }

  @Test
  void routedWithAScoreIsRoutedThenScored_andANonFiniteScoreIsRejectedByName() {
    assertThat(RoutingDecision.routed(DECODE, COST, 12.5))
        .isEqualTo(RoutingDecision.routed(DECODE, COST).withScore(12.5));
    assertThat(RoutingDecision.routed(DECODE, COST, 12.5).score()).hasValue(12.5);
    assertThatIllegalArgumentException()
        .isThrownBy(() -> RoutingDecision.routed(DECODE, COST, Double.NaN))
        .withMessageStartingWith("score: NaN");
  }

  @Test
  void routedPairServesFromDecodeAndPrefillsOnPrefill() {
    RoutingDecision d = RoutingDecision.routedPair(PREFILL, DECODE, COST);

    assertThat(d.isRouted()).isTrue();
    assertThat(d.replicaId()).isEqualTo("decode-1");
    assertThat(d.epoch()).isEqualTo(4);
    assertThat(d.prefillReplicaId()).contains("prefill-1");
    assertThat(d.prefillEpoch()).isEqualTo(7);
    assertThat(d.matchedTokens()).isEqualTo(PREFILL.matchedTokens());
    assertThat(d.toString()).contains("decode-1", "prefill-1");
  }

  @Test
  void rejectedCarriesReasonDetailAndRetryAfter() {
    RoutingDecision d =
        RoutingDecision.rejected(RejectReason.OVERLOADED, "fleet full", Duration.ofMillis(250));

    assertThat(d.isRouted()).isFalse();
    assertThat(d.reason()).isEqualTo(RejectReason.OVERLOADED);
    assertThat(d.detail()).isEqualTo("fleet full");
    assertThat(d.retryAfter()).contains(Duration.ofMillis(250));
    assertThat(d.cost().isEmpty()).isTrue();
    assertThat(d.matchedTokens()).isZero();
    assertThat(d.prefillReplicaId()).isEmpty();
    assertThat(d.toString()).contains("OVERLOADED", "fleet full");
    assertThat(RoutingDecision.rejected(RejectReason.DEADLINE, "late", null).retryAfter())
        .isEqualTo(Optional.empty());
  }

  @Test
  void routedAccessorsOnARejectionThrow() {
    RoutingDecision d = RoutingDecision.rejected(RejectReason.NO_CANDIDATES, "none", null);

    assertThatIllegalStateException().isThrownBy(d::replicaId)
        .withMessageStartingWith("replicaId: none")
        .withMessageContaining("NO_CANDIDATES")
        .withMessageContaining("expected: a routed decision");
    assertThatIllegalStateException().isThrownBy(d::epoch)
        .withMessageStartingWith("epoch: none")
        .withMessageContaining("expected: a routed decision");
  }

  @Test
  void reasonOnARoutedDecisionThrows() {
    assertThatIllegalStateException().isThrownBy(() -> RoutingDecision.routed(DECODE, COST).reason())
        .withMessageStartingWith("reason: none")
        .withMessageContaining("expected: a rejected decision");
  }

  @Test
  void negativeRetryAfterIsRejected() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> RoutingDecision.rejected(RejectReason.POLICY, "x", Duration.ofMillis(-5)))
        .withMessageStartingWith("retryAfter: " + Duration.ofMillis(-5))
        .withMessageContaining("expected: >= 0");
  }

  @Test
  void nullArgumentsAreRejectedByName() {
    assertThatNullPointerException().isThrownBy(() -> RoutingDecision.routed(null, COST))
        .withMessageContaining("chosen: null");
    assertThatNullPointerException().isThrownBy(() -> RoutingDecision.routed(DECODE, null))
        .withMessageContaining("cost: null");
    assertThatNullPointerException().isThrownBy(() -> RoutingDecision.routedPair(null, DECODE, COST))
        .withMessageContaining("prefill: null");
    assertThatNullPointerException().isThrownBy(() -> RoutingDecision.routedPair(PREFILL, null, COST))
        .withMessageContaining("decode: null");
    assertThatNullPointerException().isThrownBy(() -> RoutingDecision.rejected(null, "x", null))
        .withMessageContaining("reason: null");
    assertThatNullPointerException()
        .isThrownBy(() -> RoutingDecision.rejected(RejectReason.POLICY, null, null))
        .withMessageContaining("detail: null");
  }

  @Test
  void withCostReplacesTheCostOfARoutedDecisionOnly() {
    CostBreakdown other = CostBreakdown.of("risk", 99);
    List<RoutingDecision> decisions = List.of(
        RoutingDecision.routed(DECODE, CostBreakdown.empty()),
        RoutingDecision.routedPair(PREFILL, DECODE, COST));

    for (RoutingDecision d : decisions) {
      RoutingDecision replaced = d.withCost(other);
      assertThat(replaced.cost()).isSameAs(other);
      assertThat(nonCost(replaced)).isEqualTo(nonCost(d));
    }
    assertThatNullPointerException().isThrownBy(() -> decisions.get(0).withCost(null))
        .withMessageContaining("cost: null");
  }

  @Test
  void rejectionsCarryNoCost() {
    RoutingDecision d = RoutingDecision.rejected(RejectReason.POLICY, "x", null);
    assertThatIllegalStateException().isThrownBy(() -> d.withCost(CostBreakdown.of("q", 1)))
        .withMessageContaining("rejected");
    assertThat(d.cost().isEmpty()).isTrue();
  }
}
