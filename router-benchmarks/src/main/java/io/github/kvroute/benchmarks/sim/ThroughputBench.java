package io.github.kvroute.benchmarks.sim;

import io.github.kvroute.sim.Scenario;
import io.github.kvroute.sim.ScenarioBuilder;
import io.github.kvroute.sim.Scenarios;
import io.github.kvroute.sim.SimulationResult;
import java.util.Locale;

/**
 * Measures simulated requests per wall second on one thread for a large synthetic run (not a test):
 * {@code ThroughputBench SCENARIO POLICY REQUESTS [REPLICAS] [RATE_SCALE]}. Runs a 20,000-request
 * warm-up first so the numbers are for compiled code.
 */
final class ThroughputBench {
  private ThroughputBench() {}

  public static void main(String[] args) {
    String name = args.length > 0 ? args[0] : "mixed-sizes";
    String policy = args.length > 1 ? args[1] : "hybrid-cost";
    int requests = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000;
    ScenarioBuilder b = Scenarios.named(name).orElseThrow().toBuilder().requests(requests);
    if (args.length > 3) {
      b.replicas(Integer.parseInt(args[3]));
    }
    if (args.length > 4) {
      b.rateScale(Double.parseDouble(args[4]));
    }
    Scenario s = b.build();
    SimulatorBench.run(s.toBuilder().requests(20_000).build(), policy);
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long cpu0 = threads.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    SimulationResult r = SimulatorBench.run(s, policy);
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
    System.out.println(SimulationResult.CSV_HEADER);
    System.out.println(r.csvRow());
    r.checks().forEach(System.out::println);
    System.out.printf(Locale.ROOT, "%s %s: %d requests in %.2f s wall = %.0f simulated requests/s"
            + " (%.0f per minute); %.2f s on-thread CPU = %.0f requests/s; %.0f s simulated%n", name,
        policy, r.offered(), seconds, r.offered() / seconds, r.offered() / seconds * 60, cpuSeconds,
        r.offered() / cpuSeconds, r.simulatedSeconds());
  }
}
