package io.github.kvroute.advisors;

/**
 * The advice for one prefix changed: promoted onto more replicas, or demoted onto fewer.
 *
 * <p>Immutable and thread-safe.
 *
 * @param atNanos when, on the advisor's ticker
 * @param prefixHash the prefix
 * @param fromReplicas replicas advised before
 * @param toReplicas replicas advised now
 * @param hitsPerSecond the averaged hit rate that decided it
 * @param prefillMillis one copy's prefill
 */
public record ReplicationChange(long atNanos, long prefixHash, int fromReplicas, int toReplicas,
    double hitsPerSecond, double prefillMillis) {

  /** {@return whether the prefix was advised onto more replicas than before} */
  public boolean isPromotion() {
    return toReplicas > fromReplicas;
  }

  /** {@return the recompute bill that decided it, in ms of engine time per second} */
  public double recomputeMillisPerSecond() {
    return hitsPerSecond * prefillMillis;
  }
}
