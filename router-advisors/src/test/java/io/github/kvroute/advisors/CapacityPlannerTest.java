package io.github.kvroute.advisors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The worked sizing: 4 req/s x 8,000 tokens over 10,000 tok/s, 2,000 tok/s over 800 tok/s. */
class CapacityPlannerTest {
  private static final WorkerThroughput WORKER = new WorkerThroughput(10_000, 800, "measured");
  private static final WorkloadProfile ASSISTANT = new WorkloadProfile(4, 8_000, 500, 0);

  @Test
  void theWorkedExampleNeedsFourPrefillAndThreeDecodeWorkersAtMinimum() {
    CapacityPlan plan = CapacityPlanner.withTargetUtilization(1.0).plan(ASSISTANT, WORKER);

    assertThat(ASSISTANT.uncachedInputTokensPerSecond()).isEqualTo(32_000);
    assertThat(ASSISTANT.outputTokensPerSecond()).isEqualTo(2_000);
    assertThat(plan.prefillWorkLoad()).isCloseTo(3.2, within(1e-12));
    assertThat(plan.decodeWorkLoad()).isCloseTo(2.5, within(1e-12));
    assertThat(plan.minimumPrefillWorkers()).isEqualTo(4);
    assertThat(plan.minimumDecodeWorkers()).isEqualTo(3);
    assertThat(plan.prefillWorkers()).isEqualTo(4);
    assertThat(plan.decodeWorkers()).isEqualTo(3);
    // 3.2 + 2.5 = 5.7 engines of work when each replica does both phases
    assertThat(plan.minimumColocatedReplicas()).isEqualTo(6);
    assertThat(plan.colocatedReplicas()).isEqualTo(6);
  }

  @Test
  void headroomDividesTheLoadByTheTargetUtilization() {
    CapacityPlan plan = CapacityPlanner.create().plan(ASSISTANT, WORKER);

    assertThat(plan.targetUtilization()).isEqualTo(0.8);
    // 3.2 / 0.8 = 4.0 exactly: no fifth worker for floating-point noise
    assertThat(plan.prefillWorkers()).isEqualTo(4);
    // 2.5 / 0.8 = 3.125
    assertThat(plan.decodeWorkers()).isEqualTo(4);
    assertThat(plan.minimumPrefillWorkers()).isEqualTo(4);
    assertThat(plan.minimumDecodeWorkers()).isEqualTo(3);
    // 5.7 / 0.8 = 7.125
    assertThat(plan.colocatedReplicas()).isEqualTo(8);
  }

  @Test
  void prefixHitsDiscountPrefillButNotDecode() {
    WorkloadProfile halfCached = new WorkloadProfile(4, 8_000, 500, 0.5);

    CapacityPlan plan = CapacityPlanner.withTargetUtilization(1.0).plan(halfCached, WORKER);

    assertThat(halfCached.uncachedInputTokensPerSecond()).isEqualTo(16_000);
    assertThat(plan.minimumPrefillWorkers()).isEqualTo(2);
    assertThat(plan.minimumDecodeWorkers()).isEqualTo(3);
  }

  @Test
  void aPoolWithoutWorkIsEmptyAndAnyWorkNeedsOneWorker() {
    CapacityPlanner planner = CapacityPlanner.withTargetUtilization(1.0);

    assertThat(planner.plan(new WorkloadProfile(4, 8_000, 0, 0), WORKER).decodeWorkers()).isZero();
    assertThat(planner.plan(new WorkloadProfile(0.001, 10, 1, 0), WORKER).prefillWorkers())
        .isEqualTo(1);
  }

  @Test
  void theAssumptionsNameTheNumbersThePlanRestsOn() {
    CapacityPlan plan = CapacityPlanner.create().plan(ASSISTANT, WORKER);

    assertThat(plan.assumptions()).anySatisfy(a -> assertThat(a)
        .contains("32000 uncached tokens/s over 10000 tokens/s per worker = 3.20 workers"));
    assertThat(plan.assumptions()).anySatisfy(a -> assertThat(a)
        .contains("2000 tokens/s over 800 tokens/s per worker = 2.50 workers"));
    assertThat(plan.assumptions()).anySatisfy(a -> assertThat(a).contains("measured"));
  }

  @Test
  void badInputsAreRejectedWithTheirNameValueAndExpectation() {
    assertThatThrownBy(() -> CapacityPlanner.withTargetUtilization(1.5))
        .hasMessage("targetUtilization: 1.5 (expected: in (0, 1])");
    assertThatThrownBy(() -> new WorkloadProfile(4, 8_000, 500, 1.0))
        .hasMessage("prefixHitRate: 1.0 (expected: in [0, 1))");
    assertThatThrownBy(() -> new WorkloadProfile(0, 8_000, 500, 0))
        .hasMessage("requestsPerSecond: 0.0 (expected: finite and > 0)");
    assertThatThrownBy(() -> new WorkerThroughput(10_000, Double.NaN, "x"))
        .hasMessage("decodeTokensPerSecond: NaN (expected: finite and > 0)");
  }
}
