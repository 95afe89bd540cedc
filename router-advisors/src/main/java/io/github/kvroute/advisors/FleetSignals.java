package io.github.kvroute.advisors;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * What the fleet looks like to the router at one moment: the work that arrived since the previous
 * observation, how long a new request would queue, how much work is waiting, how full the KV caches
 * are, and each serving replica's warm state. Never CPU: an inference replica can be saturated while
 * its compute looks idle.
 *
 * <p>Immutable and thread-safe.
 *
 * @param arrivedRequests requests that arrived since the previous observation
 * @param arrivedPromptTokens their uncached prompt tokens (prefill work)
 * @param arrivedOutputTokens their output tokens (decode work)
 * @param queueDelayMillis the estimated queueing delay of a new request on the best replica
 * @param queuedPromptTokens prompt tokens waiting to be prefilled across the fleet
 * @param kvUtilization the fullest serving replica's KV cache usage, in [0, 1]
 * @param replicas the serving replicas
 */
public record FleetSignals(long arrivedRequests, long arrivedPromptTokens,
    long arrivedOutputTokens, double queueDelayMillis, long queuedPromptTokens,
    double kvUtilization, List<ReplicaWarmth> replicas) {

  /**
   * @param arrivedRequests requests that arrived since the previous observation
   * @param arrivedPromptTokens their uncached prompt tokens (prefill work)
   * @param arrivedOutputTokens their output tokens (decode work)
   * @param queueDelayMillis the estimated queueing delay of a new request on the best replica
   * @param queuedPromptTokens prompt tokens waiting to be prefilled across the fleet
   * @param kvUtilization the fullest serving replica's KV cache usage, in [0, 1]
   * @param replicas the serving replicas
   * @throws IllegalArgumentException if a count is negative or a share out of range
   */
  public FleetSignals {
    checkArgument(arrivedRequests >= 0 && arrivedPromptTokens >= 0 && arrivedOutputTokens >= 0,
        "arrivals: %s requests, %s prompt, %s output tokens (expected: >= 0)", arrivedRequests,
        arrivedPromptTokens, arrivedOutputTokens);
    checkArgument(queueDelayMillis >= 0 && Double.isFinite(queueDelayMillis),
        "queueDelayMillis: %s (expected: finite and >= 0)", queueDelayMillis);
    checkArgument(queuedPromptTokens >= 0, "queuedPromptTokens: %s (expected: >= 0)",
        queuedPromptTokens);
    checkArgument(kvUtilization >= 0 && kvUtilization <= 1,
        "kvUtilization: %s (expected: in [0, 1])", kvUtilization);
    replicas = ImmutableList.copyOf(replicas);
  }

  /**
   * A serving replica's warm state, what scaling it down would throw away.
   *
   * <p>Immutable and thread-safe.
   *
   * @param replicaId the replica
   * @param soleHotPrefixes hot prefixes no other replica holds
   * @param lastUsedNanos when it last served a prefix hit, on the advisor's ticker
   */
  public record ReplicaWarmth(String replicaId, int soleHotPrefixes, long lastUsedNanos) {
    /**
     * Requires a non-blank id and {@code soleHotPrefixes >= 0}.
     *
     * @param replicaId the replica
     * @param soleHotPrefixes hot prefixes no other replica holds
     * @param lastUsedNanos when it last served a prefix hit, on the advisor's ticker
     */
    public ReplicaWarmth {
      checkArgument(replicaId != null && !replicaId.isBlank(),
          "replicaId: %s (expected: non-blank)", replicaId);
      checkArgument(soleHotPrefixes >= 0, "soleHotPrefixes: %s (expected: >= 0)",
          soleHotPrefixes);
    }
  }
}
