package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each replica's wait is ranked as admission judges it (the calibrated queue), with or without a
 * TTFT budget; the decision carries the predicted TTFT (the raw estimate) either way.
 */
class HybridCostCalibratedWaitTest {
  /** "a" looks 100 ms away but its waits have run four times the estimate; "b" is as estimated. */
  private static final List<CandidateView> FLEET = List.of(
      CandidateView.newBuilder().replicaId("a").estimatedQueueMillis(100)
          .calibratedQueueMillis(400).build(),
      CandidateView.newBuilder().replicaId("b").estimatedQueueMillis(200).build());
  /** The same two replicas with no correction learnt: the raw estimates rank. */
  private static final List<CandidateView> UNCALIBRATED = List.of(
      CandidateView.newBuilder().replicaId("a").estimatedQueueMillis(100).build(),
      CandidateView.newBuilder().replicaId("b").estimatedQueueMillis(200).build());

  private final RoutingPolicy policy = Policies.create("hybrid-cost", Map.of("externality", "none"));

  @Test
  void withABudgetTheCalibratedWaitRanks() {
    Request request = TestRequests.request(1_000, 1).toBuilder()
        .ttftBudget(Duration.ofSeconds(2)).build();
    assertCalibratedWaitRanks(request);
  }

  @Test
  void withoutABudgetTheCalibratedWaitRanks() {
    assertCalibratedWaitRanks(TestRequests.request(1_000, 1));
  }

  @Test
  void withoutACorrectionTheEstimateRanks() {
    RoutingContext context = FixedRoutingContext.of(TestRequests.request(1_000, 1), UNCALIBRATED, 1);

    assertThat(policy.route(context).replicaId()).isEqualTo("a");
    assertThat(HybridCostPolicy.calibrationMillis(UNCALIBRATED.get(0))).isZero();
  }

  private void assertCalibratedWaitRanks(Request request) {
    RoutingContext context = FixedRoutingContext.of(request, FLEET, 1);

    RoutingDecision d = policy.route(context);

    assertThat(d.replicaId()).isEqualTo("b");
    assertThat(d.cost().totalMillis())
        .isCloseTo(context.estimateMillis(FLEET.get(1)), within(1e-9));
    assertThat(HybridCostPolicy.calibrationMillis(FLEET.get(0))).isEqualTo(300.0);
  }
}
