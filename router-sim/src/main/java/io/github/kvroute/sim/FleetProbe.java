package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * Looks at the fleet every {@link #intervalMillis()} of virtual time during a run: the hook through
 * which a fleet advisor (autoscaling, say) is shown working in the simulator. A probe only observes:
 * the run is the same with or without it (a {@link FleetController} also starts standby replicas).
 *
 * <p>Thread-safety: called on the run's thread only.
 */
public interface FleetProbe {

  /** {@return how often to sample, in virtual milliseconds (at least 1)} */
  long intervalMillis();

  /**
   * One sample; the first comes one interval after the start, the last before the run ends.
   *
   * @param sample the fleet now
   */
  void sample(Sample sample);

  /**
   * The fleet at one moment: what has arrived so far, and each replica as its metrics endpoint and
   * the first router see it.
   *
   * <p>Immutable and thread-safe.
   *
   * @param nowNanos virtual time
   * @param arrivals requests arrived since the start
   * @param arrivedPromptTokens their prompt tokens
   * @param arrivedOutputTokens their output tokens (what they will generate)
   * @param replicas each replica, in index order
   */
  record Sample(long nowNanos, long arrivals, long arrivedPromptTokens, long arrivedOutputTokens,
      List<Replica> replicas) {
    /**
     * Copies {@code replicas} into an immutable list.
     *
     * @param nowNanos virtual time
     * @param arrivals requests arrived since the start
     * @param arrivedPromptTokens their prompt tokens
     * @param arrivedOutputTokens their output tokens (what they will generate)
     * @param replicas each replica, in index order
     */
    public Sample {
      replicas = ImmutableList.copyOf(replicas);
    }
  }

  /**
   * One replica in a {@link Sample}.
   *
   * <p>Immutable and thread-safe.
   *
   * @param replicaId its id
   * @param ready whether it serves (not crashed or cold-starting)
   * @param waitingRequests requests in its waiting queue (vLLM's {@code num_requests_waiting})
   * @param queuedPrefillTokens prompt tokens it has still to prefill
   * @param kvUtilization share of its KV blocks in use, in [0, 1] (vLLM's {@code kv_cache_usage_perc})
   * @param estimatedQueueMillis the first router's estimate of a new request's queueing delay there
   * @param cachedBlocks blocks its prefix cache holds
   */
  record Replica(String replicaId, boolean ready, int waitingRequests, long queuedPrefillTokens,
      double kvUtilization, double estimatedQueueMillis, long cachedBlocks) {
    /**
     * Requires {@code kvUtilization} in {@code [0, 1]}.
     *
     * @param replicaId its id
     * @param ready whether it serves (not crashed or cold-starting)
     * @param waitingRequests requests in its waiting queue (vLLM's {@code num_requests_waiting})
     * @param queuedPrefillTokens prompt tokens it has still to prefill
     * @param kvUtilization share of its KV blocks in use, in [0, 1] (vLLM's
     *     {@code kv_cache_usage_perc})
     * @param estimatedQueueMillis the first router's estimate of a new request's queueing delay
     *     there
     * @param cachedBlocks blocks its prefix cache holds
     */
    public Replica {
      checkArgument(kvUtilization >= 0 && kvUtilization <= 1,
          "kvUtilization: %s (expected: in [0, 1])", kvUtilization);
    }
  }
}
