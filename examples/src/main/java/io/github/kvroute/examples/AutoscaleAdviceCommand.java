package io.github.kvroute.examples;

import io.github.kvroute.advisors.AutoscaleConfig;
import io.github.kvroute.advisors.ScaleAdvice;
import io.github.kvroute.advisors.WorkerThroughput;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.sim.EnginePreset;
import io.github.kvroute.sim.ProgressListener;
import io.github.kvroute.sim.Scenario;
import io.github.kvroute.sim.Scenarios;
import io.github.kvroute.sim.SimRequest;
import io.github.kvroute.sim.SimulationResult;
import io.github.kvroute.sim.Simulator;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvroute-sim advise autoscale}: one scenario run with an
 * {@link io.github.kvroute.advisors.AutoscaleAdvisor} watching (it advises; this run does not scale):
 * the changes of advice, a timeline of offered load, forecast and advice, and a chart; with
 * {@code --apply}, a second run in which standby replicas start when the advice asks.
 */
@Command(name = "autoscale", mixinStandardHelpOptions = true,
    description = "Run a scenario with the autoscale advisor watching; print its advice on a timeline"
        + " and write autoscale.png and autoscale.csv.")
final class AutoscaleAdviceCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--scenario", paramLabel = "NAME", defaultValue = "ramp-and-burst",
      description = "A named scenario (default: ${DEFAULT-VALUE}).")
  String scenario;

  @Option(names = "--policy", paramLabel = "NAME", defaultValue = "hybrid-cost",
      description = "The routing policy (default: ${DEFAULT-VALUE}).")
  String policy;

  @Option(names = "--engine", paramLabel = "NAME", defaultValue = EnginePreset.DEFAULT_NAME,
      description = "The replicas' engine preset; its step model gives the per-worker throughput"
          + " (default: ${DEFAULT-VALUE}).")
  String engine;

  @Mixin ScenarioOverrides overrides = new ScenarioOverrides();

  @Option(names = "--cold-start-s", paramLabel = "S", defaultValue = "240",
      description = "A new replica's cold start: the forecast horizon (default: ${DEFAULT-VALUE}).")
  long coldStartSeconds;

  @Option(names = "--cooldown-s", paramLabel = "S", defaultValue = "240",
      description = "No second change of advice within this (default: ${DEFAULT-VALUE}).")
  long cooldownSeconds;

  @Option(names = "--min-warm", paramLabel = "N", defaultValue = "2",
      description = "The warm pool the advice never goes below (default: ${DEFAULT-VALUE}).")
  int minWarm;

  @Option(names = "--every-s", paramLabel = "S", defaultValue = "60",
      description = "Timeline rows every S seconds (default: ${DEFAULT-VALUE}).")
  int everySeconds;

  @Option(names = "--out", paramLabel = "DIR", defaultValue = "kvroute-report",
      description = "Where autoscale.png and autoscale.csv go (default: ./kvroute-report).")
  Path out;

  @Option(names = "--no-report", description = "Print only; write no files.")
  boolean noReport;

  @Option(names = "--apply",
      description = "Also run with the advice applied: parked standby replicas start when the"
          + " advice asks, each serving after the cold start (scale-down is not applied).")
  boolean apply;

  @Option(names = "--standby", paramLabel = "N", defaultValue = "6",
      description = "Standby replicas available to --apply (default: ${DEFAULT-VALUE}).")
  int standby;

  private static void printChanges(PrintWriter o, String title, AutoscaleTimeline timeline) {
    o.println(title + " (" + timeline.changes().size() + "):");
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("t_s", "replicas", "remove", "reason"));
    for (ScaleAdvice a : timeline.changes()) {
      rows.add(List.of(String.format(Locale.ROOT, "%.0f", a.atNanos() / 1e9),
          a.previousReplicas() + "->" + a.replicas(), a.removeReplica().orElse("-"), a.reason()));
    }
    o.print(TextTable.render(rows));
  }

  @Override
  public Integer call() throws IOException {
    Scenario s = scenario();
    if (RoutingPolicyRegistry.defaultRegistry().provider(policy).isEmpty()) {
      throw new UserError("--policy: " + policy + " (expected: one of "
          + RoutingPolicyRegistry.defaultRegistry().policyNames() + ")");
    }
    if (everySeconds < 1) {
      throw new UserError("--every-s: " + everySeconds + " (expected: >= 1)");
    }
    WorkerThroughput worker = throughput(s);
    AutoscaleConfig config;
    AutoscaleTimeline timeline;
    SimulationResult result;
    AutoscaleTimeline applied = null;
    SimulationResult appliedResult = null;
    try {
      config = AutoscaleConfig.defaults().withTtftSloMillis(s.ttftSloMillis())
          .withColdStart(Duration.ofSeconds(coldStartSeconds), Duration.ofSeconds(cooldownSeconds))
          .withReplicas(minWarm, 4_096);
      timeline = new AutoscaleTimeline(config, worker, 1_000, s.replicas(), false);
      result = Simulator.create().run(s, policy, java.util.Map.of(), ProgressListener.NONE,
          timeline);
      if (apply) {
        if (standby < 1) {
          throw new UserError("--standby: " + standby + " (expected: >= 1)");
        }
        // the same fleet plus parked standbys, each serving a cold start after the advice asks
        Scenario withStandby = s.toBuilder().replicas(s.replicas() + standby)
            .standbyReplicas(standby).replicaModel(s.replicaModel().toBuilder()
                .coldStartMillis(coldStartSeconds * 1_000).build()).build();
        applied = new AutoscaleTimeline(config, worker, 1_000, s.replicas(), true);
        appliedResult = Simulator.create().run(withStandby, policy, java.util.Map.of(),
            ProgressListener.NONE, applied).relabeled(policy + "+advice");
      }
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
    PrintWriter o = spec.commandLine().getOut();
    o.println("== " + s.name() + ": " + s.description());
    o.println("worker throughput: " + worker.source());
    o.print(ResultTable.render(appliedResult == null ? List.of(result)
        : List.of(result, appliedResult)));
    o.println();
    printChanges(o, "advice changes", timeline);
    o.println();
    o.print(TextTable.render(timeline.table(everySeconds)));
    if (applied != null) {
      o.println();
      printChanges(o, "advice changes, applied (each a cold start of " + coldStartSeconds
          + " s before serving)", applied);
    }
    o.flush();
    if (!noReport) {
      Path png = timeline.write(out, "Autoscale advice — " + s.name() + " (" + policy + ")");
      spec.commandLine().getErr().println("kvroute-sim: chart written to " + png.toAbsolutePath());
      if (applied != null) {
        Path a = applied.write(out.resolve("applied"), "Autoscale advice applied — " + s.name()
            + " (" + policy + ")");
        spec.commandLine().getErr().println("kvroute-sim: chart written to " + a.toAbsolutePath());
      }
    }
    return 0;
  }

  private Scenario scenario() {
    Scenario base = Scenarios.named(scenario).orElseThrow(() -> new UserError("--scenario: "
        + scenario + " (expected: a scenario name, see `scenarios`)"));
    EnginePreset preset = EnginePreset.named(engine).orElseThrow(() -> new UserError("--engine: "
        + engine + " (expected: one of " + EnginePreset.all().stream().map(EnginePreset::name)
            .toList() + ")"));
    return overrides.apply(base.toBuilder().engine(preset));
  }

  /** The engine's per-worker throughput for the scenario's mean request, as {@code plan} gives it. */
  private WorkerThroughput throughput(Scenario s) {
    Iterator<SimRequest> it = s.workload().requests(s.seed(), s.requests(), s.rateScale(),
        s.blockSizeTokens());
    double prompt = 0;
    double output = 0;
    long n = 0;
    while (it.hasNext()) {
      SimRequest r = it.next();
      prompt += r.promptTokens();
      output += r.outputTokens();
      n++;
    }
    return PlanInputs.throughput(EnginePreset.named(engine).orElseThrow(), prompt / n, prompt / n,
        output / n, 50);
  }
}
