package io.github.kvroute.examples;

import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.sim.EnginePreset;
import io.github.kvroute.sim.Scenario;
import io.github.kvroute.sim.ScenarioBuilder;
import io.github.kvroute.sim.Scenarios;
import io.github.kvroute.sim.SimulationResult;
import io.github.kvroute.sim.Simulator;
import io.github.kvroute.sim.TelemetryProfile;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code kvroute-sim compare}: every chosen policy on one scenario (or trace), as a table or CSV on
 * stdout and a report with charts in {@code --out}.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
    description = "Run policies side by side on a scenario or a trace.")
final class CompareCommand implements Callable<Integer> {
  /** Appended to a policy's name on its oracle row. */
  private static final String ORACLE_SUFFIX = "+oracle";

  @Spec
  CommandSpec spec;

  @ParentCommand
  KvrouteSim parent;

  @Option(names = "--scenario", paramLabel = "NAME",
      description = "A named scenario (see `scenarios`); default: the first one.")
  String scenario;

  @Option(names = "--trace", paramLabel = "mooncake:PATH|azure:PATH",
      description = "Replay a trace instead of a named scenario.")
  String trace;

  @Option(names = "--policies", paramLabel = "a,b|all", defaultValue = "all",
      description = "Policies to compare (default: all registered).")
  String policies;

  @Option(names = "--replicas", paramLabel = "N") Integer replicas;
  @Option(names = "--routers", paramLabel = "N") Integer routers;
  @Option(names = "--seed", paramLabel = "S") Long seed;
  @Option(names = "--requests", paramLabel = "N") Integer requests;
  @Option(names = "--rate-scale", paramLabel = "X") Double rateScale;
  @Option(names = "--slo-ttft-ms", paramLabel = "T") Double sloTtftMillis;
  @Option(names = "--deadlines",
      description = "Tell the routers the TTFT objective: requests without a budget of their own"
          + " carry it as one, and admission rejects those predicted to miss it (default: the"
          + " objective only measures). See docs/simulator.md.")
  boolean deadlines;

  @Option(names = "--telemetry-interval-ms", paramLabel = "P") Long telemetryIntervalMillis;
  @Option(names = "--telemetry-delay-ms", paramLabel = "D") Long telemetryDelayMillis;

  // ---- what the routers know (telemetry profile, prior error, oracle runs)
  @Option(names = "--telemetry", paramLabel = "vllm|vllm-kv-events|sglang|instrumented",
      description = "What the routers are told: a stock engine's metrics, or an instrumented engine's"
          + " internals (default: the scenario's, vllm unless it names another). See"
          + " docs/telemetry.md.")
  String telemetry;

  @Option(names = "--prior-error", paramLabel = "X",
      description = "The routers' configured engine constants are off by this factor (x or /, per"
          + " constant, seeded); 1 = exact (default: 1.5).")
  Double priorError;

  @Option(names = "--oracle",
      description = "Also run each policy with instrumented telemetry, no delay, KV events and an"
          + " exact prior, shown as POLICY+oracle rows.")
  boolean oracle;

  @Option(names = "--engine", paramLabel = "NAME", defaultValue = EnginePreset.DEFAULT_NAME,
      description = "The replicas' engine preset (default: ${DEFAULT-VALUE}; see docs/engines.md).")
  String engine;

  @Option(names = "--kv-capacity-tokens", paramLabel = "N",
      description = "KV cache per replica in tokens, replacing the scenario's (huge: eviction-free).")
  Long kvCapacityTokens;

  @Option(names = "--format", paramLabel = "table|csv", defaultValue = "table",
      description = "Stdout format (default: table).")
  String format;

  @Option(names = "--out", paramLabel = "DIR", defaultValue = "kvroute-report",
      description = "Where report.html, charts and results.csv go (default: ./kvroute-report).")
  Path out;

  @Option(names = "--load-scales", paramLabel = "X,Y,...", defaultValue = "0.25,0.5,1,1.5,2,2.5,3",
      description = "Offered-load multipliers swept for capacity_rps and the goodput-vs-load chart"
          + " (default: ${DEFAULT-VALUE}); 'none' to skip.")
  String loadScales;

  @Option(names = "--capacity-steps", paramLabel = "N", defaultValue = "3",
      description = "Bisection steps placing each policy's capacity_rps between the sweep's last run"
          + " that met 90% attainment and its first that missed (one more run per policy each;"
          + " default: ${DEFAULT-VALUE}; 0 interpolates on the sweep alone).")
  int capacitySteps;

  @Option(names = "--option", paramLabel = "POLICY.KEY=VALUE",
      description = "A policy option, e.g. hybrid-cost.risk_weight=2 or "
          + "cache-aware.cache_threshold=0.5 (repeatable).")
  List<String> options = new ArrayList<>();

  @Option(names = "--no-report", description = "Print the table only; write no files.")
  boolean noReport;

  @Option(names = "--threads", paramLabel = "N",
      description = "Simulations run in parallel (default: available processors).")
  Integer threads;

  @Override
  public Integer call() throws Exception {
    if (!format.equals("table") && !format.equals("csv")) {
      throw new UserError("--format: " + format + " (expected: table or csv)");
    }
    Scenario base = applyEngine(applyOverrides(resolveScenario()));
    List<String> names = resolvePolicies();
    Map<String, Map<String, String>> configs = parseOptions(names);
    List<Double> scales = parseScales();
    if (capacitySteps < 0) {
      throw new UserError("--capacity-steps: " + capacitySteps + " (expected: >= 0)");
    }
    List<Scenario> sections = base.variants().isEmpty() ? List.of(base) : base.variants();

    List<CompareJob> jobs = new ArrayList<>();
    for (int s = 0; s < sections.size(); s++) {
      for (String policy : names) {
        jobs.add(new CompareJob(s, policy, 1.0, sections.get(s)));
        if (oracle) {
          jobs.add(new CompareJob(s, policy, 1.0, oracleOf(sections.get(s)), ORACLE_SUFFIX));
        }
        for (double scale : scales) {
          if (scale != 1.0) {
            jobs.add(scaledJob(sections, s, policy, scale, null));
            if (oracle) {
              jobs.add(scaledJob(sections, s, policy, scale, ORACLE_SUFFIX));
            }
          }
        }
      }
    }
    runAll(jobs, configs);
    List<CompareJob> between = scales.size() < 2 ? List.of()
        : CapacityBisection.rounds(jobs, capacitySteps,
            (like, scale) -> scaledJob(sections, like.section, like.policy, scale, like.label),
            round -> runAll(round, configs));

    PrintWriter stdout = spec.commandLine().getOut();
    List<ReportWriter.Section> report = new ArrayList<>();
    for (int s = 0; s < sections.size(); s++) {
      List<SimulationResult> main = new ArrayList<>();
      Map<String, List<double[]>> curves = new LinkedHashMap<>();
      for (CompareJob j : jobs) {
        if (j.section != s) {
          continue;
        }
        if (j.scale == 1.0) {
          main.add(j.label == null ? j.result : j.result.relabeled(j.policy + j.label));
        }
        if (!scales.isEmpty() && j.label == null) {
          curves.computeIfAbsent(j.policy, k -> new ArrayList<>())
              .add(new double[] {j.scale, j.result.goodputRps()});
        }
      }
      curves.values().forEach(points -> points.sort((a, b) -> Double.compare(a[0], b[0])));
      Map<String, CapacityTable.Sweep> sweeps = CapacityTable.sweeps(jobs, between, s, scales);
      Scenario sc = sections.get(s);
      if (format.equals("table")) {
        stdout.println("== " + sc.name() + ": " + sc.description());
        stdout.print(ResultTable.render(main));
        stdout.print(calibrationLines(main));
        stdout.print(noteLines(main));
        stdout.println();
        if (!sweeps.isEmpty()) {
          stdout.print(CapacityTable.render(sweeps));
          stdout.println();
        }
      } else {
        if (s == 0) {
          stdout.println(CapacityTable.csvHeader());
        }
        for (SimulationResult r : main) {
          String row = sections.size() == 1 ? r.csvRow()
              : r.csvRow().replaceFirst("^[^,]*", r.policy() + "@" + sc.name()
                  .substring(sc.name().indexOf('/') + 1));
          stdout.println(CapacityTable.csvRow(row, r, sweeps.get(r.policy())));
        }
      }
      report.add(new ReportWriter.Section(sc.name(), sc.description(), main, curves, sweeps));
    }
    stdout.flush();
    if (!noReport) {
      Path html = new ReportWriter(out).write(commandLine(), report);
      spec.commandLine().getErr().println("kvroute-sim: report written to " + html.toAbsolutePath());
    }
    return 0;
  }

  /** Section {@code s} at load {@code scale}, for {@code policy} (as its oracle when labelled so). */
  private static CompareJob scaledJob(List<Scenario> sections, int s, String policy, double scale,
      String label) {
    Scenario scaled = sections.get(s).toBuilder()
        .rateScale(sections.get(s).rateScale() * scale).build();
    return label == null ? new CompareJob(s, policy, scale, scaled)
        : new CompareJob(s, policy, scale, oracleOf(scaled), label);
  }

  private Scenario resolveScenario() {
    if (scenario != null && trace != null) {
      throw new UserError("--scenario and --trace: both given (expected: one of them)");
    }
    if (trace != null) {
      return Scenarios.fromTrace(CliArguments.trace(trace));
    }
    if (scenario == null) {
      return Scenarios.all().get(0);
    }
    return Scenarios.named(scenario).orElseThrow(() -> new UserError("--scenario: " + scenario
        + " (expected: one of " + Scenarios.all().stream().map(Scenario::name).toList() + ")"));
  }



  private Scenario applyOverrides(Scenario s) {
    ScenarioBuilder b = s.toBuilder();
    try {
      applyTelemetry(b);
      if (replicas != null) {
        b.replicas(replicas);
      }
      if (routers != null) {
        b.routers(routers);
      }
      if (seed != null) {
        b.seed(seed);
      }
      if (requests != null) {
        b.requests(requests);
      }
      if (rateScale != null) {
        b.rateScale(rateScale);
      }
      if (sloTtftMillis != null) {
        b.ttftSloMillis(sloTtftMillis);
      }
      if (deadlines) {
        b.deadlines(true);
      }
      if (telemetryIntervalMillis != null) {
        b.telemetryIntervalMillis(telemetryIntervalMillis);
      }
      if (telemetryDelayMillis != null) {
        // an explicit delay replaces a scenario's delay sweep
        b.telemetryDelayMillis(telemetryDelayMillis).telemetryDelaySweepMillis(List.of());
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
  }

  /** {@code --telemetry} and {@code --prior-error} onto the scenario. */
  private void applyTelemetry(ScenarioBuilder b) {
    if (telemetry == null) {
      applyPriorError(b);
      return;
    }
    b.telemetry(CliArguments.telemetry(telemetry));
    applyPriorError(b);
  }



  private void applyPriorError(ScenarioBuilder b) {
    if (priorError != null) {
      if (!(priorError >= 1) || priorError.isInfinite()) {
        throw new UserError("--prior-error: " + priorError + " (expected: a finite factor >= 1)");
      }
      b.priorErrorFactor(priorError);
    }
  }

  /**
   * The oracle's run of a scenario: the routers see the engine's internals at once (instrumented
   * telemetry, no delay), its cache exactly (KV events without lag) and know its constants (prior 1).
   */
  static Scenario oracleOf(Scenario s) {
    return s.toBuilder().telemetry(TelemetryProfile.INSTRUMENTED).kvEvents(true)
        .telemetryDelayMillis(0).priorErrorFactor(1.0).build();
  }

  /** Each run's notes (transfers, tiers and tenants, hedges), under its policy's name. */
  private static String noteLines(List<SimulationResult> results) {
    StringBuilder out = new StringBuilder();
    for (SimulationResult r : results) {
      for (String note : r.notes()) {
        out.append("  ").append(r.policy()).append(": ").append(note).append('\n');
      }
    }
    return out.toString();
  }

  /** Per result, router 0's learnt prefill cost per token by replica, beside the truth and prior. */
  private static String calibrationLines(List<SimulationResult> results) {
    StringBuilder out = new StringBuilder();
    for (SimulationResult r : results) {
      List<SimulationResult.Calibration> c = r.calibration();
      if (c.isEmpty()) {
        continue;
      }
      out.append(String.format(Locale.ROOT, "  %s prefill ms/token: true %.4f, prior %.4f, learnt",
          r.policy(), c.get(0).trueMillisPerToken(), c.get(0).priorMillisPerToken()));
      for (SimulationResult.Calibration x : c) {
        out.append(' ').append(x.learntText(c.get(0)));
      }
      out.append('\n');
    }
    return out.toString();
  }

  /** {@code --engine} and {@code --kv-capacity-tokens}: the engine keeps the scenario's KV capacity. */
  private Scenario applyEngine(Scenario s) {
    EnginePreset preset = EnginePreset.named(engine).orElseThrow(() -> new UserError("--engine: "
        + engine + " (expected: one of " + EnginePreset.all().stream().map(EnginePreset::name).toList()
        + ")"));
    try {
      ScenarioBuilder b = s.toBuilder().engine(preset);
      if (kvCapacityTokens != null) {
        b.kvCapacityTokens(kvCapacityTokens);
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage().replaceFirst("^kvCapacityTokens", "--kv-capacity-tokens"));
    }
  }

  private List<String> resolvePolicies() {
    RoutingPolicyRegistry registry = parent.registry();
    if (policies.equals("all")) {
      return List.copyOf(registry.policyNames());
    }
    List<String> chosen = new ArrayList<>();
    for (String p : policies.split(",")) {
      String name = p.trim();
      if (registry.provider(name).isEmpty()) {
        throw new UserError("--policies: " + name + " (expected: 'all' or names from "
            + registry.policyNames() + ")");
      }
      if (!chosen.contains(name)) {
        chosen.add(name);
      }
    }
    if (chosen.isEmpty()) {
      throw new UserError("--policies: " + policies + " (expected: at least one policy)");
    }
    return chosen;
  }

  private List<Double> parseScales() {
    if (loadScales.equals("none")) {
      return List.of();
    }
    List<Double> scales = new ArrayList<>();
    for (String part : loadScales.split(",")) {
      try {
        double v = Double.parseDouble(part.trim());
        if (v > 0 && Double.isFinite(v)) {
          scales.add(v);
          continue;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new UserError("--load-scales: " + part + " (expected: positive numbers, or 'none')");
    }
    if (!scales.contains(1.0)) {
      scales.add(1.0);
    }
    return scales.stream().distinct().toList();
  }

  /** {@code --option} values grouped by policy; each must name a policy being compared. */
  private Map<String, Map<String, String>> parseOptions(List<String> names) {
    Map<String, Map<String, String>> configs = new LinkedHashMap<>();
    for (String option : options) {
      int eq = option.indexOf('=');
      int dot = option.indexOf('.');
      if (eq < 0 || dot < 0 || dot > eq) {
        throw new UserError("--option: " + option + " (expected: POLICY.KEY=VALUE)");
      }
      String policy = option.substring(0, dot);
      if (!names.contains(policy)) {
        throw new UserError("--option: " + option + " (expected: a policy among " + names + ")");
      }
      configs.computeIfAbsent(policy, k -> new LinkedHashMap<>())
          .put(option.substring(dot + 1, eq), option.substring(eq + 1));
    }
    return configs;
  }

  private void runAll(List<CompareJob> jobs, Map<String, Map<String, String>> configs)
      throws InterruptedException {
    int n = threads != null ? Math.max(1, threads) : Runtime.getRuntime().availableProcessors();
    Progress progress = Progress.on(spec.commandLine().getErr(), jobs.size(), parent.terminal());
    Simulator simulator = Simulator.create(parent.registry());
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < jobs.size(); i++) {
        int run = i;
        CompareJob j = jobs.get(i);
        futures.add(pool.submit(() -> {
          j.result = simulator.run(j.scenario, j.policy, configs.getOrDefault(j.policy, Map.of()),
              (done, total) -> progress.update(run, total == 0 ? 1 : (double) done / total,
                  j.description));
          progress.update(run, 1, j.description);
        }));
      }
      for (Future<?> f : futures) {
        try {
          f.get();
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof IllegalArgumentException) {
            throw new UserError(cause.getMessage());
          }
          throw new IllegalStateException("simulation failed: " + cause, cause);
        }
      }
    } finally {
      pool.shutdownNow();
      progress.finish();
    }
  }

  private String commandLine() {
    List<String> args = spec.commandLine().getParseResult().originalArgs();
    return "./kvroute-sim " + String.join(" ", args);
  }
}
