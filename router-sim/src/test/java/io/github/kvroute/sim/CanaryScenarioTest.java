package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.kvroute.advisors.CanaryComparison;
import org.junit.jupiter.api.Test;

/** A canary rollout in the simulator: the split, the versions' replicas, and the fair comparison. */
class CanaryScenarioTest {

  @Test
  void aTenthOfTheTrafficReachesTheCanary_andItsColderCacheIsFlagged() {
    Scenario s = Scenarios.named("canary").orElseThrow();
    assertThat(s.canary()).isPresent();
    assertThat(s.replicaVersion(3)).contains("v2");
    assertThat(s.replicaVersion(0)).contains("v1");

    SimulationResult r = Simulator.create().run(s, "hybrid-cost");

    CanaryComparison.Report report = r.canary().orElseThrow();
    long canary = report.canary().hits() + report.canary().misses();
    long stable = report.stable().hits() + report.stable().misses();
    assertThat(canary + stable).isEqualTo(r.completed());
    assertThat((double) canary / (canary + stable)).isBetween(0.085, 0.115);
    // replica-3, the only v2 replica, served the canary's requests
    assertThat(r.tokensByReplica()[3]).isPositive();
    assertThat(report.canary().hitRatio()).isLessThan(report.stable().hitRatio() - 0.1);
    assertThat(report.cacheTemperatureDiffers()).isTrue();
    // a hit is faster than a miss in each arm: the gap in the means is mostly temperature
    assertThat(report.canary().hitMeanTtftMillis()).isLessThan(report.canary().missMeanTtftMillis());
  }

  @Test
  void withoutACanaryThereIsNoComparison_andACanaryNeedsAStableReplica() {
    assertThat(Simulator.create().run(Scenarios.named("multi-tenant").orElseThrow().toBuilder()
        .requests(200).build(), "hybrid-cost").canary()).isEmpty();
    assertThat(Scenarios.named("multi-tenant").orElseThrow().replicaVersion(0)).isEmpty();

    assertThatThrownBy(() -> Scenarios.named("multi-tenant").orElseThrow().toBuilder()
        .canary(new Scenario.Canary("v1", "v2", 0.1, 4)).build())
        .hasMessage("canary.replicas: 4 (expected: < replicas = 4, leaving the stable version one)");
    assertThatThrownBy(() -> new Scenario.Canary("v1", "v2", 0.1, 0))
        .hasMessage("canary.replicas: 0 (expected: >= 1)");
  }
}
