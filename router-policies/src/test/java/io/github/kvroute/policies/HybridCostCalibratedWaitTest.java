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
 * A request with a TTFT budget is ranked by each replica's wait as admission judges it (the
 * calibrated queue); one without keeps the raw estimate. The decision carries the predicted TTFT
 * either way.
 */
class HybridCostCalibratedWaitTest {
  /** "a" looks 100 ms away but its waits have run four times the estimate; "b" is as estimated. */
  private static final List<CandidateView> FLEET = List.of(
      CandidateView.newBuilder().replicaId("a").estimatedQueueMillis(100)
          .calibratedQueueMillis(400).build(),
      CandidateView.newBuilder().replicaId("b").estimatedQueueMillis(200).build());

  private final RoutingPolicy policy = Policies.create("hybrid-cost", Map.of("externality", "none"));

  @Test
  void withABudgetTheCalibratedWaitRanks() {
    Request request = TestRequests.request(1_000, 1).toBuilder()
        .ttftBudget(Duration.ofSeconds(2)).build();
    RoutingContext context = FixedRoutingContext.of(request, FLEET, 1);

    RoutingDecision d = policy.route(context);

    assertThat(d.replicaId()).isEqualTo("b");
    assertThat(d.cost().totalMillis())
        .isCloseTo(context.estimateMillis(FLEET.get(1)), within(1e-9));
    assertThat(HybridCostPolicy.calibrationMillis(context, FLEET.get(0))).isEqualTo(300.0);
  }

  @Test
  void withoutABudgetTheEstimateRanks() {
    RoutingContext context = FixedRoutingContext.of(TestRequests.request(1_000, 1), FLEET, 1);

    assertThat(policy.route(context).replicaId()).isEqualTo("a");
    assertThat(HybridCostPolicy.calibrationMillis(context, FLEET.get(0))).isZero();
  }
}
