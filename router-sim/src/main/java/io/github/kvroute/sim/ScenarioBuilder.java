package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableList;
import io.github.kvroute.core.Topology;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Builds a {@link Scenario} ({@link Scenario#newBuilder()}, or {@link Scenario#toBuilder()} for a
 * variation). Not thread-safe; each option may be set once.
 */
public final class ScenarioBuilder {
  // read by Scenario's constructor, written by Scenario.toBuilder()
  String name;
  String description;
  int replicas = 4;
  ReplicaModel replicaModel = EnginePreset.defaultPreset().replicaModel();
  long kvCapacityTokens;
  Workload workload;
  long telemetryIntervalMillis = 250;
  long telemetryDelayMillis = 50;
  boolean kvEvents;
  int routers = 1;
  double ttftSloMillis = 1_000;
  boolean deadlines;
  int blockSizeTokens;
  int requests;
  long seed = 1;
  double rateScale = 1.0;
  ImmutableList<Scenario.Restart> restarts = ImmutableList.of();
  boolean retries = true;
  ImmutableList<Long> telemetryDelaySweepMillis = ImmutableList.of();
  long timeLimitMillis = 30 * 60_000L;
  TelemetryProfile telemetry = TelemetryProfile.VLLM;
  double priorErrorFactor = 1.5;
  Faults faults = Faults.NONE;
  int prefillReplicas;
  Topology topology = Topology.uniform();
  RequestControls controls = RequestControls.NONE;
  double slowTailShare;
  long slowTailMillis;
  ImmutableList<RequestControls> controlSweep = ImmutableList.of();
  Scenario.Canary canary;
  int standbyReplicas;
  private final Set<String> set = new HashSet<>();

  ScenarioBuilder() {}

  private void once(String option) {
    checkState(set.add(option), "%s: already set (expected: each builder option set once)", option);
  }

  /**
   * Required.
   *
   * @param v the name; not blank
   * @return this builder
   */
  public ScenarioBuilder name(String v) {
    once("name");
    checkArgument(v != null && !v.isBlank(), "name: %s (expected: non-blank)", v);
    name = v;
    return this;
  }

  /**
   * Defaults to the workload's description.
   *
   * @param v one non-blank line
   * @return this builder
   */
  public ScenarioBuilder description(String v) {
    once("description");
    checkArgument(v != null && !v.isBlank() && v.indexOf('\n') < 0,
        "description: %s (expected: one non-blank line)", v);
    description = v;
    return this;
  }

  /**
   * Default 4.
   *
   * @param v replicas, in {@code [1, 4096]}
   * @return this builder
   */
  public ScenarioBuilder replicas(int v) {
    once("replicas");
    checkArgument(v >= 1 && v <= 4_096, "replicas: %s (expected: in [1, 4096])", v);
    replicas = v;
    return this;
  }

  /**
   * The replicas' engine; default {@link EnginePreset#defaultPreset()}'s.
   *
   * @param v the engine's constants; not null
   * @return this builder
   */
  public ScenarioBuilder replicaModel(ReplicaModel v) {
    once("replicaModel");
    replicaModel = checkNotNull(v, "replicaModel: null (expected: non-null)");
    return this;
  }

  /**
   * The replicas' engine from a preset (the same option as {@link #replicaModel}).
   *
   * @param v the preset; not null
   * @return this builder
   */
  public ScenarioBuilder engine(EnginePreset v) {
    return replicaModel(checkNotNull(v, "engine: null (expected: non-null)").replicaModel());
  }

  /**
   * KV cache per replica in tokens, replacing the engine's (a scenario about cache pressure, or a
   * huge value for an eviction-free run); default: the engine's.
   *
   * @param v tokens; {@code >= 1}
   * @return this builder
   */
  public ScenarioBuilder kvCapacityTokens(long v) {
    once("kvCapacityTokens");
    checkArgument(v >= 1, "kvCapacityTokens: %s (expected: >= 1)", v);
    kvCapacityTokens = v;
    return this;
  }

  /**
   * Required.
   *
   * @param v the traffic; not null
   * @return this builder
   */
  public ScenarioBuilder workload(Workload v) {
    once("workload");
    workload = checkNotNull(v, "workload: null (expected: non-null)");
    return this;
  }

  /**
   * P; default 250 ms.
   *
   * @param v the report interval, in virtual milliseconds; {@code >= 1}
   * @return this builder
   */
  public ScenarioBuilder telemetryIntervalMillis(long v) {
    once("telemetryIntervalMillis");
    checkArgument(v >= 1, "telemetryIntervalMillis: %s (expected: >= 1)", v);
    telemetryIntervalMillis = v;
    return this;
  }

  /**
   * D; default 50 ms.
   *
   * @param v the report delay, in virtual milliseconds; {@code >= 0}
   * @return this builder
   */
  public ScenarioBuilder telemetryDelayMillis(long v) {
    once("telemetryDelayMillis");
    checkArgument(v >= 0, "telemetryDelayMillis: %s (expected: >= 0)", v);
    telemetryDelayMillis = v;
    return this;
  }

  /**
   * KV events under the {@code instrumented} profile; default off (routers guess cache contents from
   * what they routed). The other profiles decide for themselves: asking for events under
   * {@code vllm} or {@code sglang} fails at {@link #build()}.
   *
   * @param v whether replicas publish KV events
   * @return this builder
   */
  public ScenarioBuilder kvEvents(boolean v) {
    once("kvEvents");
    kvEvents = v;
    return this;
  }

  /**
   * Default 1.
   *
   * @param v routers, in {@code [1, 1024]}
   * @return this builder
   */
  public ScenarioBuilder routers(int v) {
    once("routers");
    checkArgument(v >= 1 && v <= 1_024, "routers: %s (expected: in [1, 1024])", v);
    routers = v;
    return this;
  }

  /**
   * Default 1,000 ms.
   *
   * @param v the TTFT objective, in milliseconds; finite, {@code > 0}
   * @return this builder
   */
  public ScenarioBuilder ttftSloMillis(double v) {
    once("ttftSloMillis");
    checkArgument(v > 0 && Double.isFinite(v), "ttftSloMillis: %s (expected: finite and > 0)", v);
    ttftSloMillis = v;
    return this;
  }

  /**
   * Whether the gateway tells the routers the TTFT objective: every request without a TTFT budget of
   * its own carries {@link #ttftSloMillis} as one, so the routers' standard admission rejects a
   * request predicted to miss it instead of serving it late. Default false (the routers are told no
   * deadline; the objective only measures).
   *
   * @param v whether requests carry the objective as their budget
   * @return this builder
   */
  public ScenarioBuilder deadlines(boolean v) {
    once("deadlines");
    deadlines = v;
    return this;
  }

  /**
   * Default: the workload's required block size, else 16.
   *
   * @param v tokens per block; {@code >= 1}
   * @return this builder
   */
  public ScenarioBuilder blockSizeTokens(int v) {
    once("blockSizeTokens");
    checkArgument(v >= 1, "blockSizeTokens: %s (expected: >= 1)", v);
    blockSizeTokens = v;
    return this;
  }

  /**
   * Default: the workload's size when finite, else 2,000.
   *
   * @param v requests; {@code >= 1}
   * @return this builder
   */
  public ScenarioBuilder requests(int v) {
    once("requests");
    checkArgument(v >= 1, "requests: %s (expected: >= 1)", v);
    requests = v;
    return this;
  }

  /**
   * Default 1.
   *
   * @param v the seed
   * @return this builder
   */
  public ScenarioBuilder seed(long v) {
    once("seed");
    seed = v;
    return this;
  }

  /**
   * Default 1.
   *
   * @param v the factor on arrival rates; finite, {@code > 0}
   * @return this builder
   */
  public ScenarioBuilder rateScale(double v) {
    once("rateScale");
    checkArgument(v > 0 && Double.isFinite(v), "rateScale: %s (expected: finite and > 0)", v);
    rateScale = v;
    return this;
  }

  /**
   * Replica crashes; default none.
   *
   * @param v the crashes; copied
   * @return this builder
   */
  public ScenarioBuilder restarts(List<Scenario.Restart> v) {
    once("restarts");
    restarts = ImmutableList.copyOf(checkNotNull(v, "restarts: null (expected: a list)"));
    return this;
  }

  /**
   * Whether a failed attempt is retried once; default true.
   *
   * @param v whether to retry
   * @return this builder
   */
  public ScenarioBuilder retries(boolean v) {
    once("retries");
    retries = v;
    return this;
  }

  /**
   * Telemetry delays to sweep as {@link Scenario#variants()}; default none.
   *
   * @param v delays in virtual milliseconds, each {@code >= 0}; copied
   * @return this builder
   */
  public ScenarioBuilder telemetryDelaySweepMillis(List<Long> v) {
    once("telemetryDelaySweepMillis");
    ImmutableList<Long> copy = ImmutableList.copyOf(checkNotNull(v, "telemetryDelaySweepMillis"));
    for (long d : copy) {
      checkArgument(d >= 0, "telemetryDelaySweepMillis: %s (expected: every delay >= 0)", copy);
    }
    telemetryDelaySweepMillis = copy;
    return this;
  }

  /**
   * Default 30 minutes after the last arrival.
   *
   * @param v the limit, in virtual milliseconds; {@code >= 1}
   * @return this builder
   */
  public ScenarioBuilder timeLimitMillis(long v) {
    once("timeLimitMillis");
    checkArgument(v >= 1, "timeLimitMillis: %s (expected: >= 1)", v);
    timeLimitMillis = v;
    return this;
  }

  /**
   * What the routers are told; default {@link TelemetryProfile#VLLM}.
   *
   * @param v the profile; not null
   * @return this builder
   */
  public ScenarioBuilder telemetry(TelemetryProfile v) {
    once("telemetry");
    telemetry = checkNotNull(v, "telemetry: null (expected: a profile)");
    return this;
  }

  /**
   * The routers' prior error, {@code >= 1}; default 1.5 (1 = the routers know the engine exactly).
   *
   * @param v the factor; finite, {@code >= 1}
   * @return this builder
   */
  public ScenarioBuilder priorErrorFactor(double v) {
    once("priorErrorFactor");
    checkArgument(v >= 1 && Double.isFinite(v), "priorErrorFactor: %s (expected: finite and >= 1)",
        v);
    priorErrorFactor = v;
    return this;
  }

  /**
   * The first {@code v} replicas prefill and the rest decode; default 0 (no disaggregation).
   *
   * @param v prefill replicas; {@code >= 0}
   * @return this builder
   */
  public ScenarioBuilder prefillReplicas(int v) {
    once("prefillReplicas");
    checkArgument(v >= 0, "prefillReplicas: %s (expected: >= 0)", v);
    prefillReplicas = v;
    return this;
  }

  /**
   * Replica placement and link bandwidths (replica ids are {@code replica-N}).
   *
   * @param v the topology; not null
   * @return this builder
   */
  public ScenarioBuilder topology(Topology v) {
    once("topology");
    topology = checkNotNull(v, "topology: null (expected: non-null)");
    return this;
  }

  /**
   * The routers' request-path controls; default {@link RequestControls#NONE}.
   *
   * @param v the controls; not null
   * @return this builder
   */
  public ScenarioBuilder controls(RequestControls v) {
    once("controls");
    controls = checkNotNull(v, "controls: null (expected: non-null)");
    return this;
  }

  /**
   * A slow tail: each attempt, with probability {@code share}, strands on a slow path (a
   * congested network hop, a stuck connection) and reaches its replica {@code millis} late.
   * Default none.
   *
   * @param share the probability per attempt, in {@code [0, 1]}
   * @param millis the delay, in virtual milliseconds; {@code >= 0}
   * @return this builder
   */
  public ScenarioBuilder slowTail(double share, long millis) {
    once("slowTail");
    checkArgument(share >= 0 && share <= 1, "slowTail.share: %s (expected: in [0, 1])", share);
    checkArgument(millis >= 0, "slowTail.millis: %s (expected: >= 0)", millis);
    slowTailShare = share;
    slowTailMillis = millis;
    return this;
  }

  /**
   * Request controls to sweep as {@link Scenario#variants()}; default none.
   *
   * @param v the variants; copied
   * @return this builder
   */
  public ScenarioBuilder controlSweep(List<RequestControls> v) {
    once("controlSweep");
    controlSweep = ImmutableList.copyOf(checkNotNull(v, "controlSweep: null (expected: a list)"));
    return this;
  }

  /**
   * Faults beyond crashes; default {@link Faults#NONE}.
   *
   * @param v the faults; not null
   * @return this builder
   */
  public ScenarioBuilder faults(Faults v) {
    once("faults");
    faults = checkNotNull(v, "faults: null (expected: non-null)");
    return this;
  }

  /**
   * Replicas (of {@link #replicas}) parked until a controller starts them; default 0.
   *
   * @param v standby replicas; {@code >= 0}
   * @return this builder
   */
  public ScenarioBuilder standbyReplicas(int v) {
    once("standbyReplicas");
    checkArgument(v >= 0, "standbyReplicas: %s (expected: >= 0)", v);
    standbyReplicas = v;
    return this;
  }

  /**
   * A canary rollout; default none.
   *
   * @param v the rollout; not null
   * @return this builder
   */
  public ScenarioBuilder canary(Scenario.Canary v) {
    once("canary");
    canary = checkNotNull(v, "canary: null (expected: non-null)");
    return this;
  }

  /**
   * @return the scenario
   * @throws IllegalArgumentException if the name or workload is missing, the workload needs another
   *     block size, a restart names a replica that does not exist, or KV events are asked for under
   *     a profile without them
   */
  public Scenario build() {
    checkArgument(name != null, "name: null (expected: set before build)");
    checkArgument(workload != null, "workload: null (expected: set before build)");
    if (blockSizeTokens > 0 && workload.requiredBlockSizeTokens().isPresent()) {
      int required = workload.requiredBlockSizeTokens().getAsInt();
      checkArgument(blockSizeTokens == required,
          "blockSizeTokens: %s (expected: %s, the workload's block size)", blockSizeTokens, required);
    }
    checkArgument(!kvEvents || telemetry.allowsKvEvents(),
        "kvEvents: true (expected: false under telemetry %s, which has no KV events; use"
            + " vllm-kv-events, or instrumented with kvEvents)", telemetry);
    for (Scenario.Restart r : restarts) {
      checkArgument(r.replica() < replicas, "restarts: replica %s (expected: < replicas = %s)",
          r.replica(), replicas);
    }
    checkArgument(standbyReplicas < replicas,
        "standbyReplicas: %s (expected: < replicas = %s, leaving one serving)", standbyReplicas,
        replicas);
    checkArgument(canary == null || canary.replicas() < replicas,
        "canary.replicas: %s (expected: < replicas = %s, leaving the stable version one)",
        canary == null ? 0 : canary.replicas(), replicas);
    checkArgument(faults.maxReplica() < replicas,
        "faults: replica %s (expected: < replicas = %s)", faults.maxReplica(), replicas);
    checkArgument(faults.kvEventBatchLoss() == 0 || kvEvents
        || telemetry.alwaysKvEvents(),
        "faults.kvEventBatchLoss: %s (expected: 0 without KV events)", faults.kvEventBatchLoss());
    checkArgument(prefillReplicas == 0 || prefillReplicas < replicas,
        "prefillReplicas: %s (expected: 0, or fewer than replicas = %s to leave decode replicas)",
        prefillReplicas, replicas);
    return new Scenario(this);
  }
}
