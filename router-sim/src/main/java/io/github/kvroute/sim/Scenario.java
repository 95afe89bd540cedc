package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.collect.ImmutableList;
import io.github.kvroute.core.Topology;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Everything one simulated run needs except the policy: the fleet (replicas and their
 * {@link ReplicaModel}), the traffic ({@link Workload}, request count, rate scale, seed), how the
 * routers learn about the fleet (a {@link TelemetryProfile}'s reports every {@code P} ms arriving
 * {@code D} ms late, KV events when the profile has them, a prior off by a factor), how many
 * independent routers split the traffic, and the TTFT objective goodput is measured against.
 *
 * <pre>{@code
 * Scenario s = Scenarios.named("multi-tenant").orElseThrow().toBuilder()
 *     .replicas(8).telemetryDelayMillis(250).build();
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class Scenario {
  /**
   * A replica crash at a moment of the run (virtual milliseconds from the start; replica index from
   * 0): in-flight work fails, the cache is lost, a cold start follows. Immutable.
   */
  public record Restart(long atMillis, int replica) {
    /**
     * @param atMillis when, in virtual milliseconds from the start; {@code >= 0}
     * @param replica the replica's index, from 0
     * @throws IllegalArgumentException if a value is negative
     */
    public Restart {
      checkArgument(atMillis >= 0, "atMillis: %s (expected: >= 0)", atMillis);
      checkArgument(replica >= 0, "replica: %s (expected: >= 0)", replica);
    }
  }

  /**
   * A canary rollout: the last {@code replicas} replicas serve {@code version}, the others
   * {@code stable}; {@code share} of sessions (of requests, without sessions) go to the canary, by
   * {@link io.github.kvroute.advisors.CanarySplit}. Immutable.
   */
  public record Canary(String stable, String version, double share, int replicas) {
    /**
     * @param stable the version the first replicas serve; not blank
     * @param version the canary version; not blank, not {@code stable}
     * @param share the share of sessions sent to the canary, in {@code [0, 1]}
     * @param replicas the canary replicas, the last ones of the fleet; {@code >= 1}
     * @throws IllegalArgumentException if a version is blank or the same, or a value out of range
     */
    public Canary {
      io.github.kvroute.advisors.CanarySplit.of(stable, version, share);
      checkArgument(replicas >= 1, "canary.replicas: %s (expected: >= 1)", replicas);
    }

    /** {@return the split that assigns requests to the two versions} */
    public io.github.kvroute.advisors.CanarySplit split() {
      return io.github.kvroute.advisors.CanarySplit.of(stable, version, share);
    }
  }

  private final String name;
  private final String description;
  private final int replicas;
  private final ReplicaModel engineModel;
  private final long kvCapacityTokens;
  private final ReplicaModel replicaModel;
  private final Workload workload;
  private final long telemetryIntervalMillis;
  private final long telemetryDelayMillis;
  private final boolean kvEvents;
  private final int routers;
  private final double ttftSloMillis;
  private final boolean deadlines;
  private final int blockSizeTokens;
  private final int requests;
  private final long seed;
  private final double rateScale;
  private final ImmutableList<Restart> restarts;
  private final boolean retries;
  private final ImmutableList<Long> telemetryDelaySweepMillis;
  private final long timeLimitMillis;
  // what the routers know (telemetry profile, prior error)
  private final TelemetryProfile telemetry;
  private final double priorErrorFactor;
  private final Faults faults;
  private final int prefillReplicas;
  private final Topology topology;
  private final RequestControls controls;
  private final double slowTailShare;
  private final long slowTailMillis;
  private final ImmutableList<RequestControls> controlSweep;
  private final Canary canary;
  private final int standbyReplicas;

  Scenario(ScenarioBuilder b) {
    name = b.name;
    description = b.description != null ? b.description : b.workload.description();
    replicas = b.replicas;
    engineModel = b.replicaModel;
    kvCapacityTokens = b.kvCapacityTokens;
    replicaModel = kvCapacityTokens == 0 ? engineModel
        : engineModel.toBuilder().kvCapacityTokens(kvCapacityTokens).build();
    workload = b.workload;
    telemetryIntervalMillis = b.telemetryIntervalMillis;
    telemetryDelayMillis = b.telemetryDelayMillis;
    kvEvents = b.kvEvents;
    routers = b.routers;
    ttftSloMillis = b.ttftSloMillis;
    deadlines = b.deadlines;
    blockSizeTokens = b.blockSizeTokens > 0 ? b.blockSizeTokens
        : b.workload.requiredBlockSizeTokens().orElse(16);
    requests = b.requests > 0 ? b.requests : b.workload.size().orElse(2_000);
    seed = b.seed;
    rateScale = b.rateScale;
    restarts = b.restarts;
    retries = b.retries;
    telemetryDelaySweepMillis = b.telemetryDelaySweepMillis;
    timeLimitMillis = b.timeLimitMillis;
    telemetry = b.telemetry;
    priorErrorFactor = b.priorErrorFactor;
    faults = b.faults;
    prefillReplicas = b.prefillReplicas;
    topology = b.topology;
    controls = b.controls;
    controlSweep = b.controlSweep;
    slowTailShare = b.slowTailShare;
    slowTailMillis = b.slowTailMillis;
    canary = b.canary;
    standbyReplicas = b.standbyReplicas;
  }

  /** {@return a builder; a name and a workload are required} */
  public static ScenarioBuilder newBuilder() {
    return new ScenarioBuilder();
  }

  /**
   * {@return a builder holding this scenario's values, for variations: each option may be set once
   * more}
   */
  public ScenarioBuilder toBuilder() {
    ScenarioBuilder b = new ScenarioBuilder();
    b.name = name;
    b.description = description;
    b.replicas = replicas;
    b.replicaModel = engineModel;
    b.kvCapacityTokens = kvCapacityTokens;
    b.workload = workload;
    b.telemetryIntervalMillis = telemetryIntervalMillis;
    b.telemetryDelayMillis = telemetryDelayMillis;
    b.kvEvents = kvEvents;
    b.routers = routers;
    b.ttftSloMillis = ttftSloMillis;
    b.deadlines = deadlines;
    b.blockSizeTokens = blockSizeTokens;
    b.requests = requests;
    b.seed = seed;
    b.rateScale = rateScale;
    b.restarts = restarts;
    b.retries = retries;
    b.telemetryDelaySweepMillis = telemetryDelaySweepMillis;
    b.timeLimitMillis = timeLimitMillis;
    b.telemetry = telemetry;
    b.priorErrorFactor = priorErrorFactor;
    b.faults = faults;
    b.prefillReplicas = prefillReplicas;
    b.topology = topology;
    b.controls = controls;
    b.controlSweep = controlSweep;
    b.slowTailShare = slowTailShare;
    b.slowTailMillis = slowTailMillis;
    b.canary = canary;
    b.standbyReplicas = standbyReplicas;
    return b;
  }

  /** {@return the scenario's name, as {@link Scenarios#named} and the results take it} */
  public String name() {
    return name;
  }

  /** {@return one line} */
  public String description() {
    return description;
  }

  /** {@return replicas in the fleet, standby ones included} */
  public int replicas() {
    return replicas;
  }

  /**
   * {@return each replica's constants: the engine's, with this scenario's KV capacity when it sets
   * one}
   */
  public ReplicaModel replicaModel() {
    return replicaModel;
  }

  /** {@return the traffic} */
  public Workload workload() {
    return workload;
  }

  /** {@return the report interval P: each replica reports every P ms (each with its own phase)} */
  public long telemetryIntervalMillis() {
    return telemetryIntervalMillis;
  }

  /**
   * {@return the report delay D: a report (and a KV event) reaches the routers D ms after the
   * replica made it}
   */
  public long telemetryDelayMillis() {
    return telemetryDelayMillis;
  }

  /**
   * {@return whether replicas publish KV events, putting the routers' prefix indexes in exact mode:
   * always under {@link TelemetryProfile#VLLM_KV_EVENTS}, never under {@code vllm} or
   * {@code sglang}, and as set by {@link ScenarioBuilder#kvEvents} under {@code instrumented}}
   */
  public boolean kvEvents() {
    return telemetry.alwaysKvEvents() || (kvEvents && telemetry.allowsKvEvents());
  }

  /** {@return what the routers are told about the replicas, and how} */
  public TelemetryProfile telemetry() {
    return telemetry;
  }

  /**
   * {@return how far the routers' prior (their configured engine constants) is from the simulated
   * engine: each timing constant of the routers' {@code CostModel} is the engine's multiplied or
   * divided by this factor, which way drawn from the seed per constant; 1 is exact} See
   * {@link RouterPrior}.
   */
  public double priorErrorFactor() {
    return priorErrorFactor;
  }

  /**
   * {@return independent routers (gateway instances) splitting the traffic round-robin by request}
   */
  public int routers() {
    return routers;
  }

  /**
   * {@return the TTFT objective of {@code goodput_rps} and {@code slo_attainment} for requests
   * without a TTFT budget of their own (a request with one is measured against its budget)}
   */
  public double ttftSloMillis() {
    return ttftSloMillis;
  }

  /**
   * {@return whether requests without a TTFT budget carry {@link #ttftSloMillis} as one, so that the
   * routers' admission can reject those predicted to miss it} Default false.
   */
  public boolean deadlines() {
    return deadlines;
  }

  /**
   * {@return the TTFT budget the routers are told for {@code r}: its own, else the objective when
   * {@link #deadlines}, else none}
   */
  Optional<Duration> routerBudget(SimRequest r) {
    return r.ttftBudget().isPresent() || !deadlines ? r.ttftBudget()
        : Optional.of(Duration.ofNanos(Math.round(ttftSloMillis * 1e6)));
  }

  /** {@return tokens per KV block, in the replicas and in the routers' prefix indexes} */
  public int blockSizeTokens() {
    return blockSizeTokens;
  }

  /** {@return requests in a run} */
  public int requests() {
    return requests;
  }

  /** {@return the seed of the workload, the faults and the routers' randomness} */
  public long seed() {
    return seed;
  }

  /**
   * Multiplies the workload's arrival rates (compresses a trace's time).
   *
   * @return the factor; finite, {@code > 0} (1 keeps the workload's own rates)
   */
  public double rateScale() {
    return rateScale;
  }

  /** {@return replica crashes during the run} */
  public List<Restart> restarts() {
    return restarts;
  }

  /**
   * {@return what else goes wrong: blackouts, lost KV event batches, a slow replica, stale replays}
   */
  public Faults faults() {
    return faults;
  }

  /**
   * {@return the last {@code standbyReplicas} of {@link #replicas()} start parked (not serving,
   * reporting {@code STARTING}) until a {@link FleetController} asks for them; each then serves
   * after the engine's cold start}
   */
  public int standbyReplicas() {
    return standbyReplicas;
  }

  /** {@return the canary rollout, if the scenario has one} */
  public java.util.Optional<Canary> canary() {
    return java.util.Optional.ofNullable(canary);
  }

  /** The model version replica {@code index} serves: empty without a canary. */
  java.util.Optional<String> replicaVersion(int index) {
    if (canary == null) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(index >= replicas - canary.replicas() ? canary.version()
        : canary.stable());
  }

  /**
   * {@return whether the simulated host retries an attempt that failed on a crashed replica (once)}
   */
  public boolean retries() {
    return retries;
  }

  /**
   * {@return how many replicas (the first ones) are disaggregated PREFILL replicas, the rest
   * DECODE; 0 (the default) for a fleet of whole-request replicas}
   */
  public int prefillReplicas() {
    return prefillReplicas;
  }

  /** {@return whether the fleet is disaggregated into prefill and decode replicas} */
  public boolean disaggregated() {
    return prefillReplicas > 0;
  }

  /**
   * {@return where the replicas sit and how fast their links move KV: the transfer stage's timing,
   * and what the routers are told ({@code Router.Builder.topology})} Default
   * {@link Topology#uniform()}.
   */
  public Topology topology() {
    return topology;
  }

  /** {@return the request-path controls the routers use; default {@link RequestControls#NONE}} */
  public RequestControls controls() {
    return controls;
  }

  /**
   * {@return the share of attempts stranded on a slow path before reaching their replica; default
   * 0}
   */
  public double slowTailShare() {
    return slowTailShare;
  }

  /** {@return how long a stranded attempt takes to reach its replica} */
  public long slowTailMillis() {
    return slowTailMillis;
  }

  /** {@return the controls {@link #variants()} sweeps; empty when there are none} */
  public List<RequestControls> controlSweep() {
    return controlSweep;
  }

  /** {@return the telemetry delays {@link #variants()} sweeps; empty when there are no variants} */
  public List<Long> telemetryDelaySweepMillis() {
    return telemetryDelaySweepMillis;
  }

  /**
   * {@return virtual time after the last arrival at which requests still unfinished are ended as
   * failed ("simulation time limit"): the guard against a fleet that never drains}
   */
  public long timeLimitMillis() {
    return timeLimitMillis;
  }

  /**
   * {@return the runs this scenario stands for when it is a sweep: one per request-control value,
   * named {@code name/on}, then one per telemetry delay, named {@code name/d=250ms}; empty for an
   * ordinary scenario} Each variant is this scenario with that delay, so other overrides made
   * through {@link #toBuilder()} carry into every variant (and a telemetry delay set on this
   * scenario is replaced by the sweep's).
   */
  public List<Scenario> variants() {
    ImmutableList.Builder<Scenario> out = ImmutableList.builder();
    for (RequestControls c : controlSweep) {
      out.add(toBuilder().name(name + "/" + c.label()).controls(c)
          .controlSweep(List.of()).build());
    }
    for (long d : telemetryDelaySweepMillis) {
      out.add(toBuilder().name(name + "/d=" + d + "ms").telemetryDelayMillis(d)
          .telemetryDelaySweepMillis(List.of()).build());
    }
    return out.build();
  }

  @Override
  public String toString() {
    return "Scenario{" + name + ", replicas=" + replicas + ", routers=" + routers + ", requests="
        + requests + ", P=" + telemetryIntervalMillis + "ms, D=" + telemetryDelayMillis + "ms"
        + ", telemetry=" + telemetry + (kvEvents() ? ", kv-events" : "")
        + (priorErrorFactor != 1 ? ", prior x" + priorErrorFactor : "")
        + (deadlines ? ", deadlines " + ttftSloMillis + "ms" : "") + ", seed=" + seed
        + ", rateScale=" + rateScale + "}";
  }
}
