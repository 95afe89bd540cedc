package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import io.github.kvroute.sim.FleetProbe.Sample;
import org.junit.jupiter.api.Test;

/** A probe sees the fleet at its interval and changes nothing about the run. */
class FleetProbeTest {
  private static class Recorder implements FleetProbe {
    final List<Sample> samples = new ArrayList<>();

    @Override
    public long intervalMillis() {
      return 500;
    }

    @Override
    public void sample(Sample sample) {
      samples.add(sample);
    }
  }

  @Test
  void samplesComeEveryIntervalUntilTheRunEnds_andTheRunIsTheSameWithoutThem() {
    Scenario s = Scenarios.named("hot-prefix").orElseThrow().toBuilder().requests(600).build();
    Recorder probe = new Recorder();

    SimulationResult probed = Simulator.create().run(s, "hybrid-cost", Map.of(),
        ProgressListener.NONE, probe);
    SimulationResult plain = Simulator.create().run(s, "hybrid-cost");

    assertThat(SimulatorDeterminismTest.deterministicColumns(probed))
        .isEqualTo(SimulatorDeterminismTest.deterministicColumns(plain));
    assertThat(probe.samples).isNotEmpty();
    for (int i = 0; i < probe.samples.size(); i++) {
      FleetProbe.Sample x = probe.samples.get(i);
      assertThat(x.nowNanos()).isEqualTo((i + 1) * 500_000_000L);
      assertThat(x.replicas()).hasSize(3).allSatisfy(r -> assertThat(r.ready()).isTrue());
      if (i > 0) {
        assertThat(x.arrivals()).isGreaterThanOrEqualTo(probe.samples.get(i - 1).arrivals());
      }
    }
    FleetProbe.Sample last = probe.samples.get(probe.samples.size() - 1);
    assertThat(last.arrivals()).isEqualTo(600);
    assertThat(last.nowNanos() / 1e9).isLessThanOrEqualTo(probed.simulatedSeconds() + 0.5);
    assertThat(last.arrivedPromptTokens()).isGreaterThan(600L * 2_000);
    assertThat(probe.samples).anySatisfy(x -> assertThat(x.replicas())
        .anySatisfy(r -> assertThat(r.kvUtilization()).isPositive()));
  }

  /** Wants {@code wanted} replicas from {@code fromSeconds} on. */
  private static final class Controller extends Recorder implements FleetController {
    final int wanted;
    final double fromSeconds;

    Controller(int wanted, double fromSeconds) {
      this.wanted = wanted;
      this.fromSeconds = fromSeconds;
    }

    @Override
    public int wantedReplicas() {
      List<Sample> all = samples;
      return all.get(all.size() - 1).nowNanos() / 1e9 >= fromSeconds ? wanted : 0;
    }
  }

  @Test
  void parkedStandbysServeNothingUntilAControllerStartsThem_thenAfterTheColdStart() {
    Scenario s = Scenarios.named("multi-tenant").orElseThrow().toBuilder().replicas(6)
        .standbyReplicas(2).replicaModel(EnginePreset.defaultPreset().replicaModel().toBuilder()
            .coldStartMillis(10_000).build()).build();

    Recorder watcher = new Recorder();
    SimulationResult idle = Simulator.create().run(s, "hybrid-cost", Map.of(),
        ProgressListener.NONE, watcher);
    assertThat(idle.tokensByReplica()[4]).isZero();
    assertThat(idle.tokensByReplica()[5]).isZero();
    assertThat(watcher.samples).allSatisfy(x -> assertThat(x.replicas().subList(4, 6))
        .noneMatch(FleetProbe.Replica::ready));

    // round-robin: every routable replica gets its turn, so a started one shows in the work
    Controller controller = new Controller(5, 20);
    SimulationResult scaled = Simulator.create().run(s, "round-robin", Map.of(),
        ProgressListener.NONE, controller);
    assertThat(scaled.tokensByReplica()[4]).isPositive();
    assertThat(scaled.tokensByReplica()[5]).isZero();
    // asked at 20 s, serving after the 10 s cold start
    for (Sample x : controller.samples) {
      boolean ready = x.replicas().get(4).ready();
      if (x.nowNanos() < 30_000_000_000L) {
        assertThat(ready).as("at %s ns", x.nowNanos()).isFalse();
      } else if (x.nowNanos() > 31_000_000_000L) {
        assertThat(ready).as("at %s ns", x.nowNanos()).isTrue();
      }
    }
    assertThatThrownBy(() -> s.toBuilder().standbyReplicas(6).build())
        .hasMessage("standbyReplicas: 6 (expected: < replicas = 6, leaving one serving)");
  }

  @Test
  void aProbeWithoutAnIntervalIsRefused() {
    Scenario s = Scenarios.named("hot-prefix").orElseThrow();
    FleetProbe bad = new FleetProbe() {
      @Override
      public long intervalMillis() {
        return 0;
      }

      @Override
      public void sample(Sample sample) {}
    };

    assertThatThrownBy(() -> Simulator.create().run(s, "hybrid-cost", Map.of(),
        ProgressListener.NONE, bad)).hasMessage("probe.intervalMillis: 0 (expected: >= 1)");
  }

  @Test
  void rampAndBurstDoublesTheRampsRateForItsBurstOnly() {
    ArrivalProcess p = ArrivalProcess.rampAndBurst(10, 10, 100, 50, 20, 3);
    java.util.function.LongSupplier stream = p.start(new java.util.SplittableRandom(7), 1.0);
    int before = 0;
    int during = 0;
    for (long t = stream.getAsLong(); t < 90_000_000_000L; t = stream.getAsLong()) {
      if (t >= 30_000_000_000L && t < 50_000_000_000L) {
        before++;
      } else if (t >= 50_000_000_000L && t < 70_000_000_000L) {
        during++;
      }
    }
    // 20 s at 10/s, then 20 s at 30/s
    assertThat(before).isBetween(160, 240);
    assertThat(during).isBetween(520, 680);
    assertThat(p.describe()).contains("x3.0 for 20 s at 50 s");
  }
}
