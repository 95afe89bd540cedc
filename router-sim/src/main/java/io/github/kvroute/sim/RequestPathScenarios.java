package io.github.kvroute.sim;

import static io.github.kvroute.sim.Scenarios.MULTI_TENANT_RPS;
import static io.github.kvroute.sim.Scenarios.multiTenant;
import static io.github.kvroute.sim.Scenarios.rate;

import com.google.common.collect.ImmutableList;
import io.github.kvroute.core.LinkClass;
import io.github.kvroute.core.Topology;
import java.util.List;

/**
 * The request-path scenarios ({@link Scenarios#requestPath()}): run only when named (not part of
 * the standard suite); each shows one control of the request path (disaggregated pairs, tiers and
 * tenant fairness, hedging).
 *
 * <p>Thread-safety: immutable and thread-safe.
 */
final class RequestPathScenarios {
  /** {@code pd-disaggregated} and {@code pd-skewed-links}: Poisson requests per second. */
  static final double PD_RPS = 24;
  /** {@code pd-skewed-links}: Poisson requests per second (one prefill replica runs at half speed). */
  static final double PD_SKEWED_RPS = 18;

  /** {@code tenant-burst}: Poisson requests per second, above what the fleet serves. */
  static final double TENANT_BURST_RPS = 40;

  private static final ImmutableList<Scenario> ALL = ImmutableList.of(
      pdDisaggregated(), pdSkewedLinks(), tenantBurst(), slowTail());

  private RequestPathScenarios() {}

  /** In a stable order: {@code kvroute-sim scenarios} lists them in it. */
  static List<Scenario> all() {
    return ALL;
  }

  /**
   * {@code pd-disaggregated}: 2 prefill and 4 decode replicas (65,536 tokens of KV each) in two
   * racks, each prefill replica sharing a node with one decode replica and a rack with another;
   * 8 tenants' 2,000-6,000-token system prompts with 64-512-token questions and 64-256-token
   * answers, Poisson {@value #PD_RPS} req/s. The router chooses pairs: where the prompt's prefix is
   * warm, which decode replica can hold the KV when the prefill ends, and how long the move takes
   * (same node: the reference link, same rack half of it, across racks an eighth). 1 s TTFT
   * objective, 2,000 requests.
   */
  static Scenario pdDisaggregated() {
    return Scenario.newBuilder()
        .name("pd-disaggregated")
        .description("2 prefill + 4 decode replicas in 2 racks, KV moved over same-node / rack /"
            + " cross-rack links; 8 tenants' 2k-6k prompts, Poisson " + rate(PD_RPS)
            + " req/s, SLO 1 s")
        .workload(new SyntheticWorkload(ArrivalProcess.poisson(PD_RPS),
            Shapes.tenants(new int[] {6_000, 5_500, 5_000, 4_500, 4_000, 3_000, 2_500, 2_000},
                64, 512, 64, 256)))
        .replicas(6)
        .prefillReplicas(2)
        .topology(Topology.newBuilder()
            .place("replica-0", "node-a", "rack-1").place("replica-2", "node-a", "rack-1")
            .place("replica-3", "node-b", "rack-1")
            .place("replica-1", "node-c", "rack-2").place("replica-4", "node-c", "rack-2")
            .place("replica-5", "node-d", "rack-2")
            .build())
        .kvCapacityTokens(65_536)
        .requests(2_000)
        .ttftSloMillis(1_000)
        .build();
  }

  /**
   * {@code pd-skewed-links}: {@link #pdDisaggregated()}'s requests at {@value #PD_SKEWED_RPS} req/s
   * on 2 prefill and 3 decode
   * replicas where the best prefill replica has a poor link to the free decode replicas: replica-0
   * (full speed) sits alone in rack-1, every decode replica is in rack-2, and a cross-rack move runs
   * at a sixteenth of the reference link; replica-1, beside them on node-c, runs its steps 2x slower.
   * Choosing each side alone sends prefills to replica-0 and then waits for the move; the pair's
   * cost weighs the faster prefill against the slower link.
   */
  static Scenario pdSkewedLinks() {
    return pdDisaggregated().toBuilder()
        .name("pd-skewed-links")
        .description("the fastest prefill replica is a rack away from every decode replica (1/16"
            + " of the reference link); the other prefills 2x slower beside them; Poisson "
            + rate(PD_SKEWED_RPS) + " req/s, SLO 1 s")
        .workload(new SyntheticWorkload(ArrivalProcess.poisson(PD_SKEWED_RPS),
            Shapes.tenants(new int[] {6_000, 5_500, 5_000, 4_500, 4_000, 3_000, 2_500, 2_000},
                64, 512, 64, 256)))
        .replicas(5)
        .topology(Topology.newBuilder()
            .place("replica-0", "node-a", "rack-1")
            .place("replica-1", "node-c", "rack-2").place("replica-2", "node-c", "rack-2")
            .place("replica-3", "node-d", "rack-2").place("replica-4", "node-e", "rack-2")
            .bandwidth(LinkClass.CROSS_RACK, Topology.REFERENCE_BYTES_PER_SECOND / 16)
            .build())
        .faults(Faults.NONE.withSlowReplica(1, 2))
        .build();
  }

  /**
   * {@code tenant-burst}: a bulk tenant floods (60% of requests, BATCH, unique 4,000-8,000-token
   * prompts) beside 4 chat tenants (INTERACTIVE, 1,000-token system prompts, short turns), Poisson
   * {@value #TENANT_BURST_RPS} req/s on 4 replicas: more work than the fleet serves. Run twice: routers
   * without request controls ({@code tenant-burst/off}) and with fleet backpressure by tier (limit the
   * 1 s TTFT objective, interactive reserve 0.2) and tenant fairness ({@code tenant-burst/on}). The
   * notes give the interactive tier's TTFT p99 and SLO attainment and each tenant's share of the
   * completed prompt tokens. 3,000 requests.
   */
  static Scenario tenantBurst() {
    return Scenario.newBuilder()
        .name("tenant-burst")
        .description("a bulk tenant floods (60% BATCH, 4k-8k-token prompts) beside 4 interactive chat"
            + " tenants; Poisson " + rate(TENANT_BURST_RPS) + " req/s on 4 replicas, SLO 1 s;"
            + " without / with tiers and tenant fairness")
        .workload(new SyntheticWorkload(ArrivalProcess.poisson(TENANT_BURST_RPS),
            Shapes.tenantBurst(0.6, 4_000, 8_000, 4)))
        .replicas(4)
        .requests(3_000)
        .ttftSloMillis(1_000)
        .controlSweep(List.of(new RequestControls("off", false, false),
            new RequestControls("on", true, false)))
        .build();
  }

  /**
   * {@code slow-tail}: {@link Scenarios#multiTenant()}'s traffic at half its rate (the fleet is not
   * the bottleneck) where 1% of attempts strand on a slow path and reach their replica 3 s late. Run
   * without hedging ({@code slow-tail/off}) and with the hedging advice ({@code slow-tail/on}: a
   * second attempt when one unanswered at its delay, at least 500 ms, is worth its duplicate prefill;
   * budget 2 per 100). The notes count the hedges and their duplicate prefill.
   */
  static Scenario slowTail() {
    return multiTenant().toBuilder()
        .name("slow-tail")
        .description("multi-tenant at " + rate(MULTI_TENANT_RPS / 2) + " req/s; 1% of attempts"
            + " strand 3 s on a slow path; without / with hedging advice")
        .workload(new SyntheticWorkload(ArrivalProcess.poisson(MULTI_TENANT_RPS / 2),
            Shapes.tenants(new int[] {3_000, 2_800, 2_600, 3_000, 2_800, 2_600}, 32, 128, 16, 64)))
        .slowTail(0.01, 3_000)
        .controlSweep(List.of(new RequestControls("off", false, false),
            new RequestControls("on", false, true)))
        .build();
  }
}
