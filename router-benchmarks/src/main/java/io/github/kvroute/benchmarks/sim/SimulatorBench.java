package io.github.kvroute.benchmarks.sim;

import io.github.kvroute.sim.Scenario;
import io.github.kvroute.sim.Scenarios;
import io.github.kvroute.sim.SimulationResult;
import io.github.kvroute.sim.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Measures the simulator by hand (not a test): runs scenarios x policies and prints CSV rows with wall
 * time and simulated requests per wall second.
 *
 * <pre>
 * java -cp ... io.github.kvroute.benchmarks.sim.SimulatorBench [scenario ...]
 * </pre>
 */
final class SimulatorBench {
  private SimulatorBench() {}

  public static void main(String[] args) {
    List<Scenario> scenarios = new ArrayList<>();
    for (String a : args) {
      scenarios.add(Scenarios.named(a).orElseThrow(() -> new IllegalArgumentException(a)));
    }
    if (scenarios.isEmpty()) {
      scenarios.addAll(Scenarios.all());
    }
    List<String> policies = List.of("round-robin", "hybrid-cost", "least-outstanding-tokens",
        "cache-only");
    for (Scenario base : scenarios) {
      List<Scenario> runs = base.variants().isEmpty() ? List.of(base) : base.variants();
      for (Scenario s : runs) {
        System.out.println("# " + s.name() + ": " + s.description());
        System.out.println(SimulationResult.CSV_HEADER + ",preemptions,busy,wall_ms,req_per_wall_s");
        for (String p : policies) {
          SimulationResult r = run(s, p);
          String busy = r.checks().stream().filter(l -> l.contains("prefilled")).findFirst().orElse("")
              .replaceAll(".*prefilled ([0-9]+%) on average .busiest replica prefilled ([0-9]+%).*", "$1/$2");
          System.out.println(r.csvRow() + String.format(Locale.ROOT, ",%d,%s,%.0f,%.0f",
              r.preemptions(), busy, r.wallSeconds() * 1000, r.requestsPerWallSecond()));
        }
      }
    }
  }

  static SimulationResult run(Scenario s, String policy) {
    return Simulator.create().run(s, policy);
  }
}
