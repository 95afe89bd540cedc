package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every named scenario (and every variant) runs with the policies on the test classpath without a
 * self-check failing; the numbers add up.
 */
class ScenarioSelfChecksTest {

  static Stream<Arguments> runs() {
    List<Arguments> out = new ArrayList<>();
    for (Scenario s : Scenarios.all()) {
      List<Scenario> runs = s.variants().isEmpty() ? List.of(s) : s.variants();
      for (Scenario r : runs) {
        for (String policy : List.of("round-robin", "hybrid-cost")) {
          out.add(Arguments.of(r.name(), r.toBuilder().requests(Math.min(r.requests(), 800)).build(),
              policy));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} with {2}")
  @MethodSource("runs")
  void accountingBalances(String name, Scenario scenario, String policy) {
    AtomicLong calls = new AtomicLong();
    AtomicLong last = new AtomicLong(-1);
    SimulationResult r = Simulator.create().run(scenario, policy, java.util.Map.of(),
        (done, total) -> {
          calls.incrementAndGet();
          assertThat(done).isGreaterThan(last.get()).isLessThanOrEqualTo(total);
          last.set(done);
        });

    assertThat(r.offered()).isEqualTo(scenario.requests());
    assertThat(r.completed() + r.rejected() + r.failed()).isEqualTo(r.offered());
    assertThat(r.admitted()).isBetween(r.completed(), r.offered());
    assertThat(r.checks()).isNotEmpty().noneMatch(l -> l.startsWith("FAILED"));
    assertThat(r.policy()).isEqualTo(policy);
    assertThat(r.scenario()).isEqualTo(name);
    assertThat(calls.get()).isBetween(1L, 102L);
    assertThat(last.get()).isEqualTo(r.offered());
    assertThat(r.rejectedByReason().values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(r.rejected());
    assertThat(r.failedByReason().values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(r.failed());
    assertThat(r.replicaWork()).hasSize(scenario.replicas());
    long bucketed = r.replicaWork().stream().flatMapToLong(java.util.Arrays::stream).sum();
    assertThat(bucketed).isEqualTo(java.util.Arrays.stream(r.tokensByReplica()).sum());
  }
}
