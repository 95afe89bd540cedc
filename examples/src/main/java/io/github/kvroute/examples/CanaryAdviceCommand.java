package io.github.kvroute.examples;

import io.github.kvroute.advisors.CanaryComparison;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.sim.ProgressListener;
import io.github.kvroute.sim.Scenario;
import io.github.kvroute.sim.Scenarios;
import io.github.kvroute.sim.SimulationResult;
import io.github.kvroute.sim.Simulator;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvroute-sim advise canary}: a scenario with a canary rollout, and both arms' TTFT split by
 * prefix hit, flagged when their hit ratios differ (the mean then measures cache temperature).
 */
@Command(name = "canary", mixinStandardHelpOptions = true,
    description = "Run a canary rollout scenario and compare the arms' TTFT with and without prefix"
        + " hits.")
final class CanaryAdviceCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--scenario", paramLabel = "NAME", defaultValue = "canary",
      description = "A scenario with a canary (default: ${DEFAULT-VALUE}).")
  String scenario;

  @Option(names = "--policy", paramLabel = "NAME", defaultValue = "hybrid-cost",
      description = "The routing policy (default: ${DEFAULT-VALUE}).")
  String policy;

  @Mixin ScenarioOverrides overrides = new ScenarioOverrides();

  @Override
  public Integer call() {
    Scenario s = scenario();
    if (RoutingPolicyRegistry.defaultRegistry().provider(policy).isEmpty()) {
      throw new UserError("--policy: " + policy + " (expected: one of "
          + RoutingPolicyRegistry.defaultRegistry().policyNames() + ")");
    }
    SimulationResult r;
    try {
      r = Simulator.create().run(s, policy, Map.of(), ProgressListener.NONE);
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
    CanaryComparison.Report report = r.canary().orElseThrow();
    PrintWriter o = spec.commandLine().getOut();
    o.println("== " + s.name() + ": " + s.description());
    o.print(ResultTable.render(List.of(r)));
    o.println();
    o.print(TextTable.render(List.of(
        List.of("arm", "requests", "hit_ratio", "ttft_mean_ms", "ttft_hit_ms", "ttft_miss_ms"),
        row("stable " + report.stable().version(), report.stable()),
        row("canary " + report.canary().version(), report.canary()))));
    o.println(String.format(Locale.ROOT, "hit ratio gap %+.3f: %s", report.hitRatioGap(),
        report.cacheTemperatureDiffers()
            ? "the arms' caches differ; compare hit with hit and miss with miss, not the means"
            : "within the threshold; the means compare"));
    o.flush();
    return 0;
  }

  private static List<String> row(String name, CanaryComparison.Arm a) {
    return List.of(name, String.valueOf(a.hits() + a.misses()), fmt("%.3f", a.hitRatio()),
        fmt("%.1f", a.meanTtftMillis()), fmt("%.1f", a.hitMeanTtftMillis()),
        fmt("%.1f", a.missMeanTtftMillis()));
  }

  private static String fmt(String template, Object... args) {
    return String.format(Locale.ROOT, template, args);
  }

  private Scenario scenario() {
    Scenario base = Scenarios.named(scenario).filter(x -> x.canary().isPresent())
        .orElseThrow(() -> new UserError("--scenario: " + scenario
            + " (expected: a scenario with a canary, e.g. canary)"));
    return overrides.apply(base.toBuilder());
  }
}
