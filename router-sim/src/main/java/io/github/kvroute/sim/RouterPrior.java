package io.github.kvroute.sim;

import io.github.kvroute.core.CostModel;
import java.util.SplittableRandom;

/**
 * The routers' prior: the {@link CostModel} a host would configure from its engine's nominal constants,
 * which in the simulator is deliberately off from the simulated engine, because a real host's
 * configuration never matches its fleet exactly (other GPUs, other drivers, another model revision).
 *
 * <h2>Design notes</h2>
 * Each timing constant the router is configured with (prefill overhead, prefill cost per token, adapter
 * load time) is the engine's own value multiplied or divided by the scenario's
 * {@linkplain Scenario#priorErrorFactor() prior error factor} (default 1.5), which way drawn from the
 * seed, independently per constant: a router may believe prefill is 1.5x slower and its overhead 1.5x
 * smaller. KV bytes per token is the model's arithmetic, known exactly. The router then learns what it
 * can from what the gateway sees: TTFTs, usage, outcomes (see the run's calibration note).
 *
 * <p>This is the one place the simulator turns engine constants into router configuration: when the
 * engine model changes, only {@link #truth(ReplicaModel)} follows it.
 *
 * <p>Thread-safety: stateless; thread-safe.
 */
final class RouterPrior {
  private RouterPrior() {}

  /** The constants the routers would be configured with if they knew the engine exactly. */
  static CostModel truth(ReplicaModel m) {
    return CostModel.newBuilder()
        .prefillOverheadMillis(m.prefillOverheadMillis())
        .prefillMillisPerToken(m.prefillMillisPerToken())
        .adapterLoadMillis(m.adapterLoadMillis())
        .kvBytesPerToken(m.kvBytesPerToken())
        .build();
  }

  /** The truth with each timing constant off by {@code factor} (x or /, drawn from {@code seed}). */
  static CostModel of(ReplicaModel m, double factor, long seed) {
    CostModel t = truth(m);
    SplittableRandom random = new SplittableRandom(seed ^ 0x5EED_0F_9121L);
    return CostModel.newBuilder()
        .prefillOverheadMillis(t.prefillOverheadMillis() * skew(factor, random))
        .prefillMillisPerToken(t.prefillMillisPerToken() * skew(factor, random))
        .adapterLoadMillis(t.adapterLoadMillis() * skew(factor, random))
        .kvBytesPerToken(t.kvBytesPerToken())
        .build();
  }

  private static double skew(double factor, SplittableRandom random) {
    return random.nextBoolean() ? factor : 1 / factor;
  }
}
