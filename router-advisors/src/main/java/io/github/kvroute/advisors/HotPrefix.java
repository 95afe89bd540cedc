package io.github.kvroute.advisors;

/**
 * One prefix the replication advice spreads over more than one replica.
 *
 * <p>Immutable and thread-safe.
 *
 * @param prefixHash the prefix's identity (the chained hash of its last block)
 * @param replicas replicas the prefix should be held on, at least 2
 * @param hitsPerSecond its averaged hit rate when the advice was made
 * @param prefillMillis what one copy costs: the prefix's prefill on one replica
 */
public record HotPrefix(long prefixHash, int replicas, double hitsPerSecond, double prefillMillis) {

  /**
   * {@return the recompute bill the copies avoid: hits per second times the prefill, in ms per
   * second}
   */
  public double recomputeMillisPerSecond() {
    return hitsPerSecond * prefillMillis;
  }
}
