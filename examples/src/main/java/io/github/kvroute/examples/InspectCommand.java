package io.github.kvroute.examples;

import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.sim.FleetProbe;
import io.github.kvroute.sim.ProgressListener;
import io.github.kvroute.sim.Scenario;
import io.github.kvroute.sim.ScenarioBuilder;
import io.github.kvroute.sim.Scenarios;
import io.github.kvroute.sim.SimulationResult;
import io.github.kvroute.sim.Simulator;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
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
 * {@code kvroute-sim inspect}: one scenario with each policy, and per replica what its engine had
 * waiting beside what the router estimated a new request would wait there; the view that shows
 * whether a policy's load went where its estimates said.
 *
 * <p>The fleet is sampled every {@code --interval-ms} of virtual time ({@link FleetProbe}): the
 * engine's waiting count ({@code vllm:num_requests_waiting}) and KV use as its metrics show them, and
 * the first router's queue estimate for that replica as {@code Router.replicas()} shows it; the work
 * share is the replica's part of the tokens the fleet computed.
 */
@Command(name = "inspect", mixinStandardHelpOptions = true,
    description = "Run one scenario with each policy and show, per replica, the engine's waiting"
        + " requests and KV use beside the router's queue estimate there.")
final class InspectCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--scenario", paramLabel = "NAME", defaultValue = "multi-tenant",
      description = "A named scenario (default: ${DEFAULT-VALUE}).")
  String scenario;

  @Option(names = "--policies", paramLabel = "A,B", split = ",",
      defaultValue = "hybrid-cost,weighted-score",
      description = "The policies, one run each (default: ${DEFAULT-VALUE}).")
  List<String> policies;

  @Option(names = "--interval-ms", paramLabel = "MS", defaultValue = "250",
      description = "How often the fleet is sampled, in virtual milliseconds"
          + " (default: ${DEFAULT-VALUE}).")
  long intervalMillis;

  @Option(names = "--timeline",
      description = "Also print every sample: per replica, waiting requests / the router's queue"
          + " estimate in ms / KV use, so a collapse shows when it starts.")
  boolean timeline;

  @Option(names = "--telemetry", paramLabel = "vllm|vllm-kv-events|sglang|instrumented",
      description = "What the routers are told (default: the scenario's); see docs/telemetry.md.")
  String telemetry;

  @Mixin ScenarioOverrides overrides = new ScenarioOverrides();

  @Override
  public Integer call() {
    if (intervalMillis < 1) {
      throw new UserError("--interval-ms: " + intervalMillis + " (expected: >= 1)");
    }
    ScenarioBuilder b = Scenarios.named(scenario).orElseThrow(() -> new UserError(
        "--scenario: " + scenario + " (expected: one of " + Scenarios.all().stream()
            .map(Scenario::name).toList() + ")")).toBuilder();
    if (telemetry != null) {
      b.telemetry(CliArguments.telemetry(telemetry));
    }
    Scenario s = overrides.apply(b);
    for (String p : policies) {
      if (RoutingPolicyRegistry.defaultRegistry().provider(p).isEmpty()) {
        throw new UserError("--policies: " + p + " (expected: one of "
            + RoutingPolicyRegistry.defaultRegistry().policyNames() + ")");
      }
    }
    PrintWriter o = spec.commandLine().getOut();
    o.println("== " + s.name() + ": " + s.description());
    for (String p : policies) {
      Sums sums = new Sums(s.replicas(), intervalMillis, timeline ? o : null);
      SimulationResult r;
      try {
        r = Simulator.create().run(s, p, Map.of(), ProgressListener.NONE, sums);
      } catch (IllegalArgumentException e) {
        throw new UserError(e.getMessage());
      }
      o.println();
      o.println(fmt("%s: SLO attainment %.4f, TTFT p90 %.1f ms, prefix hit ratio %.4f, %d samples",
          p, r.sloAttainment(), r.ttftP90Millis(), r.prefixHitRatio(), sums.samples));
      o.print(TextTable.render(sums.rows(r.tokensByReplica())));
    }
    o.flush();
    return 0;
  }

  /** Per-replica sums over the samples of one run. */
  private static final class Sums implements FleetProbe {
    private final long intervalMillis;
    private final String[] ids;
    private final double[] waiting;
    private final double[] estimate;
    private final double[] kv;
    /** Where each sample is printed as it comes, or null. */
    private final PrintWriter timeline;
    private int samples;

    Sums(int replicas, long intervalMillis, PrintWriter timeline) {
      this.intervalMillis = intervalMillis;
      this.timeline = timeline;
      this.ids = new String[replicas];
      this.waiting = new double[replicas];
      this.estimate = new double[replicas];
      this.kv = new double[replicas];
    }

    @Override
    public long intervalMillis() {
      return intervalMillis;
    }

    @Override
    public void sample(Sample sample) {
      samples++;
      if (timeline != null) {
        StringBuilder line = new StringBuilder(fmt("t=%7.1fs", sample.nowNanos() / 1e9));
        for (FleetProbe.Replica r : sample.replicas()) {
          line.append(fmt("  %s %s%d/%.0f/%.2f", r.replicaId(), r.ready() ? "" : "(down) ",
              r.waitingRequests(), r.estimatedQueueMillis(), r.kvUtilization()));
        }
        timeline.println(line);
      }
      for (int i = 0; i < ids.length && i < sample.replicas().size(); i++) {
        FleetProbe.Replica r = sample.replicas().get(i);
        ids[i] = r.replicaId();
        waiting[i] += r.waitingRequests();
        estimate[i] += r.estimatedQueueMillis();
        kv[i] += r.kvUtilization();
      }
    }

    List<List<String>> rows(long[] tokensByReplica) {
      long total = Arrays.stream(tokensByReplica).sum();
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("replica", "mean_waiting", "mean_estimated_queue_ms",
          "estimate_per_waiting_ms", "mean_kv_use", "work_share"));
      int n = Math.max(1, samples);
      for (int i = 0; i < ids.length; i++) {
        double w = waiting[i] / n;
        double q = estimate[i] / n;
        rows.add(List.of(ids[i] == null ? "replica-" + i : ids[i], fmt("%.1f", w), fmt("%.1f", q),
            w > 0 ? fmt("%.1f", q / w) : "-", fmt("%.2f", kv[i] / n),
            i < tokensByReplica.length && total > 0
                ? fmt("%.3f", (double) tokensByReplica[i] / total) : "-"));
      }
      return rows;
    }
  }

  private static String fmt(String template, Object... args) {
    return String.format(Locale.ROOT, template, args);
  }
}
