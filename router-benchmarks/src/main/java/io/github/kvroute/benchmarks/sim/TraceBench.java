package io.github.kvroute.benchmarks.sim;

import io.github.kvroute.sim.Scenario;
import io.github.kvroute.sim.ScenarioBuilder;
import io.github.kvroute.sim.Scenarios;
import io.github.kvroute.sim.SimulationResult;
import io.github.kvroute.sim.trace.AzureTrace;
import io.github.kvroute.sim.trace.MooncakeTrace;
import io.github.kvroute.sim.trace.TraceSource;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Replays a full trace by hand (not a test): {@code TraceBench mooncake|azure PATH [REPLICAS]
 * [POLICY ...]}, printing each policy's CSV row, the time to read the trace and each run's wall time.
 */
final class TraceBench {
  private TraceBench() {}

  public static void main(String[] args) throws Exception {
    long t0 = System.nanoTime();
    TraceSource trace = args[0].equals("mooncake") ? MooncakeTrace.read(Path.of(args[1]))
        : AzureTrace.read(Path.of(args[1]));
    System.out.printf(Locale.ROOT, "# %s read in %.2f s%n", trace.description(),
        (System.nanoTime() - t0) / 1e9);
    ScenarioBuilder b = Scenarios.fromTrace(trace).toBuilder();
    if (args.length > 2) {
      b.replicas(Integer.parseInt(args[2]));
    }
    Scenario s = b.build();
    String[] policies = args.length > 3 ? java.util.Arrays.copyOfRange(args, 3, args.length)
        : new String[] {"round-robin", "hybrid-cost"};
    System.out.println(SimulationResult.CSV_HEADER + ",preemptions,wall_s,simulated_s");
    for (String p : policies) {
      long start = System.nanoTime();
      SimulationResult r = SimulatorBench.run(s, p);
      System.out.println(r.csvRow() + String.format(Locale.ROOT, ",%d,%.2f,%.0f", r.preemptions(),
          (System.nanoTime() - start) / 1e9, r.simulatedSeconds()));
    }
  }
}
