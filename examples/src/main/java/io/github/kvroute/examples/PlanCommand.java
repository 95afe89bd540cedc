package io.github.kvroute.examples;

import io.github.kvroute.advisors.CapacityPlan;
import io.github.kvroute.advisors.CapacityPlanner;
import io.github.kvroute.advisors.WorkerThroughput;
import io.github.kvroute.advisors.WorkloadProfile;
import io.github.kvroute.sim.EnginePreset;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvroute-sim plan}: prefill, decode and colocated pool sizes in units of work, for a trace's
 * offered load (or one given by hand) on an engine preset's workers (or measured throughputs), with
 * the assumptions behind each number.
 */
@Command(name = "plan", mixinStandardHelpOptions = true,
    description = "Size prefill and decode pools in units of work (tokens/s over per-worker"
        + " throughput), from a trace or given rates, and print the assumptions.")
final class PlanCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--trace", paramLabel = "mooncake:PATH|azure:PATH",
      description = "Measure the offered load from a trace (rate, mean lengths, prefix hit rate).")
  String trace;

  @Option(names = "--rps", paramLabel = "R", description = "Requests per second (replaces the"
      + " trace's).")
  Double rps;

  @Option(names = "--rate-scale", paramLabel = "X", defaultValue = "1",
      description = "Multiplies the request rate (default: ${DEFAULT-VALUE}).")
  double rateScale;

  @Option(names = "--input-tokens", paramLabel = "N", description = "Mean prompt tokens.")
  Double inputTokens;

  @Option(names = "--output-tokens", paramLabel = "N", description = "Mean output tokens.")
  Double outputTokens;

  @Option(names = "--hit-rate", paramLabel = "H",
      description = "Share of prompt tokens served by prefix caches, in [0, 1) (default: the trace's"
          + " with an unbounded cache, else 0).")
  Double hitRate;

  @Option(names = "--engine", paramLabel = "NAME", defaultValue = EnginePreset.DEFAULT_NAME,
      description = "Engine preset whose per-worker throughput the simulator's step model gives"
          + " (default: ${DEFAULT-VALUE}).")
  String engine;

  @Option(names = "--tpot-ms", paramLabel = "T", defaultValue = "50",
      description = "Per-token latency target decode throughput is measured under (default:"
          + " ${DEFAULT-VALUE}).")
  double tpotMillis;

  @Option(names = "--prefill-tokens-per-second", paramLabel = "X",
      description = "A measured prefill throughput per worker, replacing the engine's.")
  Double prefillTokensPerSecond;

  @Option(names = "--decode-tokens-per-second", paramLabel = "X",
      description = "A measured decode throughput per worker, replacing the engine's.")
  Double decodeTokensPerSecond;

  @Option(names = "--target-utilization", paramLabel = "U",
      defaultValue = "" + CapacityPlanner.DEFAULT_TARGET_UTILIZATION,
      description = "Share of each worker's throughput the plan spends; the rest is headroom"
          + " (default: ${DEFAULT-VALUE}).")
  double targetUtilization;

  @Override
  public Integer call() {
    try {
      WorkloadProfile workload = workload();
      CapacityPlan plan = CapacityPlanner.withTargetUtilization(targetUtilization)
          .plan(workload, throughput(workload));
      PrintWriter out = spec.commandLine().getOut();
      out.println("workload from: " + (trace == null ? "the options" : trace
          + (hitRate != null ? "" : "; its prefix hit rate assumes an unbounded cache (an upper"
              + " bound: real caches evict; set --hit-rate to a measured one)")));
      out.print(render(plan));
      out.flush();
      return 0;
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
  }

  private WorkloadProfile workload() {
    WorkloadProfile measured = trace == null ? null : PlanInputs.profile(CliArguments.trace(trace));
    if (measured == null && (rps == null || inputTokens == null || outputTokens == null)) {
      throw new UserError("--trace: none (expected: a trace, or all of --rps, --input-tokens and"
          + " --output-tokens)");
    }
    if (!(rateScale > 0) || Double.isInfinite(rateScale)) {
      throw new UserError("--rate-scale: " + rateScale + " (expected: finite and > 0)");
    }
    return new WorkloadProfile(
        rateScale * (rps != null ? rps : measured.requestsPerSecond()),
        inputTokens != null ? inputTokens : measured.meanInputTokens(),
        outputTokens != null ? outputTokens : measured.meanOutputTokens(),
        hitRate != null ? hitRate : measured != null ? measured.prefixHitRate() : 0);
  }

  private WorkerThroughput throughput(WorkloadProfile w) {
    if (prefillTokensPerSecond != null && decodeTokensPerSecond != null) {
      return new WorkerThroughput(prefillTokensPerSecond, decodeTokensPerSecond, "measured (given)");
    }
    EnginePreset preset = EnginePreset.named(engine).orElseThrow(() -> new UserError("--engine: "
        + engine + " (expected: one of " + EnginePreset.all().stream().map(EnginePreset::name)
            .toList() + ")"));
    if (!(tpotMillis > 0) || Double.isInfinite(tpotMillis)) {
      throw new UserError("--tpot-ms: " + tpotMillis + " (expected: finite and > 0)");
    }
    WorkerThroughput model = PlanInputs.throughput(preset,
        w.meanInputTokens() * (1 - w.prefixHitRate()), w.meanInputTokens(), w.meanOutputTokens(),
        tpotMillis);
    return new WorkerThroughput(
        prefillTokensPerSecond != null ? prefillTokensPerSecond : model.prefillTokensPerSecond(),
        decodeTokensPerSecond != null ? decodeTokensPerSecond : model.decodeTokensPerSecond(),
        (prefillTokensPerSecond != null ? "prefill measured (given); " : "")
            + (decodeTokensPerSecond != null ? "decode measured (given); " : "") + model.source());
  }

  static String render(CapacityPlan plan) {
    String planned = String.format(Locale.ROOT, "planned (%.0f%%)", 100 * plan.targetUtilization());
    StringBuilder out = new StringBuilder(TextTable.render(List.of(
        List.of("pool", "work (workers)", "minimum", planned),
        row("prefill", plan.prefillWorkLoad(), plan.minimumPrefillWorkers(), plan.prefillWorkers()),
        row("decode", plan.decodeWorkLoad(), plan.minimumDecodeWorkers(), plan.decodeWorkers()),
        row("colocated", plan.prefillWorkLoad() + plan.decodeWorkLoad(),
            plan.minimumColocatedReplicas(), plan.colocatedReplicas()))));
    out.append("assumptions:\n");
    for (String a : plan.assumptions()) {
      out.append("  - ").append(a).append('\n');
    }
    return out.toString();
  }

  private static List<String> row(String pool, double load, int minimum, int planned) {
    return List.of(pool, String.format(Locale.ROOT, "%.2f", load), String.valueOf(minimum),
        String.valueOf(planned));
  }
}
