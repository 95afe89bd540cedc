package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Same seed, same numbers (except the wall-clock decision columns); another seed, other numbers. */
class SimulatorDeterminismTest {

  /** The CSV row without its last two columns (decision_us_p50, decision_us_p99). */
  static String deterministicColumns(SimulationResult r) {
    String[] cols = r.csvRow().split(",");
    return String.join(",", Arrays.copyOf(cols, cols.length - 2));
  }

  @ParameterizedTest
  @ValueSource(strings = {"round-robin", "hybrid-cost"})
  void sameSeedGivesTheSameRowAndAnotherSeedAnotherRow(String policy) {
    Scenario s = Scenarios.named("hot-prefix").orElseThrow().toBuilder().requests(600).build();
    Simulator sim = Simulator.create();

    SimulationResult first = sim.run(s, policy);
    SimulationResult second = sim.run(s, policy);
    SimulationResult otherSeed = sim.run(s.toBuilder().seed(2).build(), policy);

    assertThat(deterministicColumns(second)).isEqualTo(deterministicColumns(first));
    assertThat(second.ttftCdf()).isEqualTo(first.ttftCdf());
    assertThat(second.tokensByReplica()).isEqualTo(first.tokensByReplica());
    assertThat(deterministicColumns(otherSeed)).isNotEqualTo(deterministicColumns(first));
  }

  @ParameterizedTest
  @EnumSource(TelemetryProfile.class)
  void everyTelemetryProfileIsDeterministic(TelemetryProfile profile) {
    Scenario s = Scenarios.named("stale-telemetry").orElseThrow().toBuilder().requests(400)
        .telemetry(profile).build();
    Simulator sim = Simulator.create();

    SimulationResult first = sim.run(s, "hybrid-cost");
    SimulationResult second = sim.run(s, "hybrid-cost");

    assertThat(deterministicColumns(second)).isEqualTo(deterministicColumns(first));
    assertThat(second.checks()).isEqualTo(first.checks());
    assertThat(second.calibration()).isEqualTo(first.calibration());
  }

  @ParameterizedTest
  @ValueSource(strings = {"multi-turn-chat", "stale-telemetry"})
  void multiRouterAndSessionScenariosAreDeterministicToo(String name) {
    Scenario s = Scenarios.named(name).orElseThrow().toBuilder().requests(400).build();
    Simulator sim = Simulator.create();
    assertThat(deterministicColumns(sim.run(s, "hybrid-cost")))
        .isEqualTo(deterministicColumns(sim.run(s, "hybrid-cost")));
  }
}
