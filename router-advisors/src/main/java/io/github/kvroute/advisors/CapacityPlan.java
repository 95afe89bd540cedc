package io.github.kvroute.advisors;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * Pool sizes in units of work, from a {@link CapacityPlanner}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param workload what was sized for
 * @param throughput what one worker sustains
 * @param targetUtilization the share of each worker's throughput the plan spends (the rest is headroom)
 * @param prefillWorkLoad prefill workers' worth of work: uncached prompt tokens/s over one worker's
 *     prefill throughput (not rounded)
 * @param decodeWorkLoad decode workers' worth of work: output tokens/s over one worker's decode
 *     throughput (not rounded)
 * @param minimumPrefillWorkers {@code prefillWorkLoad} rounded up: the floor before any headroom
 * @param minimumDecodeWorkers {@code decodeWorkLoad} rounded up
 * @param prefillWorkers prefill workers with headroom: {@code prefillWorkLoad / targetUtilization},
 *     rounded up
 * @param decodeWorkers decode workers with headroom
 * @param minimumColocatedReplicas replicas doing both phases (no disaggregation), at minimum: the two
 *     loads add, since one engine's time serves either
 * @param colocatedReplicas replicas doing both phases, with headroom
 * @param assumptions what the numbers rest on, one line each, for the operator reading the plan
 */
public record CapacityPlan(WorkloadProfile workload, WorkerThroughput throughput,
    double targetUtilization, double prefillWorkLoad, double decodeWorkLoad,
    int minimumPrefillWorkers, int minimumDecodeWorkers, int prefillWorkers, int decodeWorkers,
    int minimumColocatedReplicas, int colocatedReplicas, List<String> assumptions) {

  /**
   * Copies {@code assumptions} into an immutable list.
   *
   * @param workload what was sized for
   * @param throughput what one worker sustains
   * @param targetUtilization the share of each worker's throughput the plan spends (the rest is
   *     headroom)
   * @param prefillWorkLoad prefill workers' worth of work: uncached prompt tokens/s over one
   *     worker's prefill throughput (not rounded)
   * @param decodeWorkLoad decode workers' worth of work: output tokens/s over one worker's decode
   *     throughput (not rounded)
   * @param minimumPrefillWorkers {@code prefillWorkLoad} rounded up: the floor before any headroom
   * @param minimumDecodeWorkers {@code decodeWorkLoad} rounded up
   * @param prefillWorkers prefill workers with headroom:
   *     {@code prefillWorkLoad / targetUtilization}, rounded up
   * @param decodeWorkers decode workers with headroom
   * @param minimumColocatedReplicas replicas doing both phases (no disaggregation), at minimum: the
   *     two loads add, since one engine's time serves either
   * @param colocatedReplicas replicas doing both phases, with headroom
   * @param assumptions what the numbers rest on, one line each, for the operator reading the plan
   */
  public CapacityPlan {
    assumptions = ImmutableList.copyOf(assumptions);
  }
}
