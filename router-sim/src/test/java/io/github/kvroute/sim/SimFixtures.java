package io.github.kvroute.sim;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Small builders for hand-made workloads and recorded runs. */
final class SimFixtures {
  static final String MODEL = "m";
  static final CacheNamespace NS = CacheNamespace.of(MODEL);

  private SimFixtures() {}

  /** Block ids {@code [from, from + n)} offset into the id space of {@code family}. */
  static long[] ids(long family, int from, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = family * 1_000_000L + from + i;
    }
    return out;
  }

  static long[] concat(long[] a, long[] b) {
    long[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** A request arriving at {@code atMillis} with a prompt of {@code tokens} in 16-token blocks. */
  static SimRequest request(String id, double atMillis, int tokens, long[] blockIds, int output) {
    return SimRequest.newBuilder().id(id).arrivalNanos(Math.round(atMillis * 1e6)).model(MODEL)
        .prompt(PromptKey.ofBlockHashes(blockIds, 16, tokens, NS)).outputTokens(output).build();
  }

  /** A prompt of {@code tokens} whose full blocks are unique to {@code family}. */
  static SimRequest unique(String id, double atMillis, int tokens, long family, int output) {
    return request(id, atMillis, tokens, ids(family, 0, tokens / 16), output);
  }

  /** One replica with the worked-example model, telemetry every second without delay. */
  static ScenarioBuilder oneReplica(List<SimRequest> requests) {
    return oneReplica(requests, ReplicaModel.defaults());
  }

  /** One replica with {@code model}, telemetry every second without delay. */
  static ScenarioBuilder oneReplica(List<SimRequest> requests, ReplicaModel model) {
    // the routers know the engine's constants exactly, so hand-computed predictions hold
    return Scenario.newBuilder().name("hand-made").workload(Workload.fixed(requests)).replicas(1)
        .replicaModel(model).telemetryIntervalMillis(1_000).telemetryDelayMillis(0)
        .priorErrorFactor(1.0);
  }

  /** A run that keeps every request's record, by id. */
  static Recorded runRecorded(Scenario scenario, String policy) {
    Simulation sim = new Simulation(scenario, byName(policy), ProgressListener.NONE, true);
    SimulationResult result = sim.run();
    Map<String, RequestRecord> byId = new HashMap<>();
    for (RequestRecord r : sim.records()) {
      byId.put(r.id(), r);
    }
    return new Recorded(result, byId);
  }

  static Simulation.PolicyChoice byName(String policy) {
    return new Simulation.PolicyChoice() {
      @Override
      public String name() {
        return policy;
      }

      @Override
      public void configure(io.github.kvroute.core.Router.Builder b) {
        b.policy(policy);
      }
    };
  }

  record Recorded(SimulationResult result, Map<String, RequestRecord> records) {
    RequestRecord get(String id) {
      return records.get(id);
    }
  }

  /** Milliseconds of one engine step with the default model. */
  static double stepMillis(int sequences, int prefillsStarting, int prefillTokens) {
    return 8 + 0.06 * sequences + 20 * prefillsStarting + 0.035 * prefillTokens;
  }

  /** Nanoseconds as the engine rounds a step. */
  static long nanos(double millis) {
    return Math.round(millis * 1e6);
  }
}
