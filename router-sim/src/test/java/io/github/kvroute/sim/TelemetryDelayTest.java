package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reports reach the routers D ms after the replica made them: their age at routing is in [D, D + P]. */
class TelemetryDelayTest {

  /** Routes to the first candidate and records every candidate's report age. */
  static final class AgeRecorder implements RoutingPolicy {
    final List<double[]> ages = new ArrayList<>(); // {now ms, age ms}

    @Override
    public String name() {
      return "age-recorder";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      for (CandidateView c : context.candidates()) {
        ages.add(new double[] {context.nowNanos() / 1e6, c.snapshotAgeMillis()});
      }
      return context.candidates().isEmpty() ? context.noCandidates()
          : RoutingDecision.routed(context.candidates().get(0), CostBreakdown.empty());
    }
  }

  @ParameterizedTest
  @CsvSource({"100, 0", "100, 250", "250, 1000"})
  void reportAgeAtRoutingIsTheDelayPlusAtMostOneInterval(long interval, long delay) {
    AgeRecorder recorder = new AgeRecorder();
    Scenario s = Scenarios.named("mixed-sizes").orElseThrow().toBuilder()
        .replicas(2).requests(300).telemetryIntervalMillis(interval).telemetryDelayMillis(delay)
        .build();

    new Simulation(s, Simulator.instances("age-recorder", () -> recorder), ProgressListener.NONE,
        false).run();

    List<double[]> settled = recorder.ages.stream().filter(a -> a[0] > delay + interval).toList();
    assertThat(settled).hasSizeGreaterThan(200);
    for (double[] a : settled) {
      assertThat(a[1]).as("age at %s ms", a[0]).isBetween((double) delay, (double) delay + interval);
    }
  }
}
