package io.github.kvroute.sim;

import static io.github.kvroute.sim.Scenarios.multiTenant;
import static io.github.kvroute.sim.Scenarios.rate;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * The advisor scenarios ({@link Scenarios#advisors()}): run only when named (not part of the
 * standard suite), each long enough in virtual time for a fleet advisor's horizon (minutes), so
 * slower than the standard suite.
 *
 * <p>Thread-safety: immutable and thread-safe.
 */
final class AdvisorScenarios {
  /** {@code ramp-and-burst}: the arrival rate at the start of the ramp. */
  static final double RAMP_FROM_RPS = 4;
  /** {@code ramp-and-burst}: the arrival rate at the end of the ramp. */
  static final double RAMP_TO_RPS = 26;
  /** {@code ramp-and-burst}: the ramp's length in seconds. */
  static final double RAMP_SECONDS = 720;
  /** {@code ramp-and-burst}: when the burst starts, in seconds. */
  static final double BURST_AT_SECONDS = 150;
  /** {@code ramp-and-burst}: how long the burst lasts, shorter than a 4-minute cold start. */
  static final double BURST_SECONDS = 90;
  /** {@code ramp-and-burst}: the burst's multiple of the ramp's rate. */
  static final double BURST_FACTOR = 2.5;

  /** {@code canary}: the share of sessions (here: requests) sent to the new version. */
  static final double CANARY_SHARE = 0.10;

  private static final ImmutableList<Scenario> ALL = ImmutableList.of(rampAndBurst(),
      canary());

  private AdvisorScenarios() {}

  /** In a stable order: {@code kvroute-sim scenarios} lists them in it. */
  static List<Scenario> all() {
    return ALL;
  }

  /**
   * {@code ramp-and-burst}: Poisson arrivals ramping from {@value #RAMP_FROM_RPS} to
   * {@value #RAMP_TO_RPS} req/s over {@value #RAMP_SECONDS} s, then steady, with the rate multiplied
   * by {@value #BURST_FACTOR} for {@value #BURST_SECONDS} s from {@value #BURST_AT_SECONDS} s; unique prompts (log-normal, median
   * 2,000 tokens, clipped to 200-8,000) and outputs (median 150, 10-1,000) on 3 replicas; 1 s TTFT
   * objective, 14,000 requests (about 15 minutes). The ramp outgrows the fleet for good, which an
   * autoscaler should see coming a cold start ahead; the burst is over before a replica started for
   * it would serve.
   */
  static Scenario rampAndBurst() {
    return Scenario.newBuilder()
        .name("ramp-and-burst")
        .description("slow ramp " + rate(RAMP_FROM_RPS) + "->" + rate(RAMP_TO_RPS) + " req/s over "
            + rate(RAMP_SECONDS) + " s with a " + rate(BURST_SECONDS) + " s x" + rate(BURST_FACTOR)
            + " burst at " + rate(BURST_AT_SECONDS) + " s; 3 replicas, SLO 1 s (autoscaling advice)")
        .workload(new SyntheticWorkload(ArrivalProcess.rampAndBurst(RAMP_FROM_RPS, RAMP_TO_RPS,
            RAMP_SECONDS, BURST_AT_SECONDS, BURST_SECONDS, BURST_FACTOR),
            Shapes.mixedSizes(2_000, 0.8, 200, 8_000, 150, 1.0, 10, 1_000)))
        .replicas(3)
        .requests(14_000)
        .ttftSloMillis(1_000)
        .build();
  }

  /**
   * {@code canary}: {@link Scenarios#multiTenant()} during a rollout: replica-3 serves version v2,
   * the others v1, and {@value #CANARY_SHARE} of the traffic goes to v2 (split by session, here by request: the
   * workload has no sessions). The canary replica sees every tenant's prompt at a tenth of the rate
   * and holds two of six, so it runs colder than the stable replicas whatever the model: its mean TTFT
   * measures cache temperature, and the comparison must be read hit against hit, miss against miss.
   */
  static Scenario canary() {
    return multiTenant().toBuilder()
        .name("canary")
        .description("multi-tenant during a rollout: replica-3 serves v2 and takes "
            + rate(100 * CANARY_SHARE) + "% of the traffic; both arms' TTFT by prefix hit")
        .canary(new Scenario.Canary("v1", "v2", CANARY_SHARE, 1))
        .build();
  }
}
