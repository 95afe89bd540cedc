package io.github.kvroute.examples;

import io.github.kvroute.advisors.ReplicatedPrefixPolicy;
import io.github.kvroute.advisors.ReplicatedPrefixPolicyProvider;
import io.github.kvroute.advisors.ReplicationChange;
import io.github.kvroute.api.RoutingPolicyProvider;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.sim.ProgressListener;
import io.github.kvroute.sim.Scenario;
import io.github.kvroute.sim.Scenarios;
import io.github.kvroute.sim.SimulationResult;
import io.github.kvroute.sim.Simulator;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
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
 * {@code kvroute-sim advise replication}: a policy alone, then the same policy behind
 * {@code hot-prefix-replication} (the hot-prefix advisor's advice acted on), on one scenario; the
 * results side by side and the advice's changes on a timeline.
 */
@Command(name = "replication", mixinStandardHelpOptions = true,
    description = "Run a policy with and without hot-prefix replication advice and compare goodput;"
        + " print the advice's promotions and demotions.")
final class ReplicationAdviceCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--scenario", paramLabel = "NAME", defaultValue = "hot-prefix",
      description = "A named scenario (default: ${DEFAULT-VALUE}).")
  String scenario;

  @Option(names = "--policy", paramLabel = "NAME", defaultValue = "cache-aware",
      description = "The policy placing requests whose prefix is not replicated (default:"
          + " ${DEFAULT-VALUE}).")
  String policy;

  @Mixin ScenarioOverrides overrides = new ScenarioOverrides();

  @Option(names = "--option", paramLabel = "KEY=VALUE",
      description = "A hot-prefix-replication option, e.g. max_replicas=2 or prefix_tokens=256"
          + " (repeatable).")
  List<String> options = new ArrayList<>();

  @Override
  public Integer call() {
    Scenario base = scenario();
    RoutingPolicyRegistry registry = RoutingPolicyRegistry.newRegistry();
    List<ReplicationChange> changes = Collections.synchronizedList(new ArrayList<>());
    for (RoutingPolicyProvider p : RoutingPolicyRegistry.defaultRegistry().providers()) {
      registry.register(p);
    }
    registry.register(new ReplicatedPrefixPolicyProvider(changes::add));
    if (registry.provider(policy).isEmpty() || policy.equals(ReplicatedPrefixPolicy.NAME)) {
      throw new UserError("--policy: " + policy + " (expected: one of "
          + RoutingPolicyRegistry.defaultRegistry().policyNames() + ")");
    }
    Map<String, String> config = new LinkedHashMap<>();
    for (String o : options) {
      int eq = o.indexOf('=');
      if (eq <= 0) {
        throw new UserError("--option: " + o + " (expected: KEY=VALUE)");
      }
      config.put(o.substring(0, eq), o.substring(eq + 1));
    }
    config.put("delegate", policy);
    Simulator simulator = Simulator.create(registry);
    SimulationResult without;
    SimulationResult with;
    try {
      without = simulator.run(base, policy, Map.of(), ProgressListener.NONE);
      with = simulator.run(base, ReplicatedPrefixPolicy.NAME, config, ProgressListener.NONE)
          .relabeled(policy + "+replication");
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    out.println("== " + base.name() + ": " + base.description()
        + (base.rateScale() != 1 ? String.format(Locale.ROOT, " (rate x%s)", base.rateScale()) : ""));
    out.print(ResultTable.render(List.of(without, with)));
    out.println();
    out.println("replication advice (" + changes.size() + " changes):");
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("t_s", "prefix", "replicas", "hits_per_s", "recompute_ms_per_s", "copy_ms"));
    for (ReplicationChange c : changes) {
      rows.add(List.of(String.format(Locale.ROOT, "%.1f", c.atNanos() / 1e9),
          String.format("%016x", c.prefixHash()), c.fromReplicas() + "->" + c.toReplicas(),
          String.format(Locale.ROOT, "%.2f", c.hitsPerSecond()),
          String.format(Locale.ROOT, "%.0f", c.recomputeMillisPerSecond()),
          String.format(Locale.ROOT, "%.0f", c.prefillMillis())));
    }
    out.print(TextTable.render(rows));
    out.flush();
    return 0;
  }

  private Scenario scenario() {
    Scenario s = Scenarios.named(scenario).orElseThrow(() -> new UserError("--scenario: "
        + scenario + " (expected: one of " + Scenarios.all().stream().map(Scenario::name).toList()
        + ")"));
    return overrides.apply(s.toBuilder());
  }
}
