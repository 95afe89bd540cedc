package io.github.kvroute.api;

/**
 * What the router did with a snapshot, KV event or outcome. A report for a replica id the router
 * has not seen introduces that replica; a KV event does not (it is dropped as
 * {@link #UNKNOWN_REPLICA}). Situations that happen in production (a late message from a dead
 * process, a duplicated outcome, a skewed clock) are answered with a value and change nothing; only
 * programming errors throw.
 */
public enum UpdateResult {
  /** Applied. */
  APPLIED,
  /**
   * From an older epoch than the replica's current one, or from a replica the host removed (at or below
   * its last epoch): ignored.
   */
  STALE_EPOCH,
  /**
   * Observed before the report the router already holds for the same epoch, or a KV event whose
   * sequence number is not above the last one applied for its replica and epoch (a duplicate or a
   * late retransmission): ignored.
   */
  OUT_OF_ORDER,
  /**
   * An outcome for an attempt the router has no record of: never routed by this router, or closed
   * so long ago (more than twice the lease timeout) that it was forgotten; a router remembers at
   * most a million closed attempts, so at more than that many outcomes per two lease timeouts the
   * oldest are forgotten earlier. Ignored.
   */
  UNKNOWN_REQUEST,
  /**
   * An outcome for an attempt whose lease is already closed: reported twice, or ended by orphaning or
   * expiry. Ignored.
   */
  DUPLICATE,
  /** An outcome naming another replica or epoch than its lease: ignored. */
  MISMATCHED_REPLICA,
  /**
   * A KV event for a replica the router does not know (it has not reported yet, or the host removed
   * it): dropped and counted, so that events cannot create replicas.
   */
  UNKNOWN_REPLICA,
  /**
   * A report observed further in the router's future than the accepted clock skew: ignored and
   * counted, so that one bad clock cannot make every later report look out of order.
   */
  CLOCK_SKEW,
  /**
   * A report or KV event whose epoch runs further ahead of the replica's known one than any restart
   * can explain (a corrupted or mis-scaled epoch from a buggy exporter): ignored, so that it cannot
   * make every real report {@link #STALE_EPOCH} until an even newer epoch arrives. The bound is the
   * router's {@code maxEpochAdvance} plus the nanoseconds elapsed since it learnt the known epoch.
   */
  EPOCH_JUMP;

  /** {@return whether this is {@link #APPLIED}} */
  public boolean isApplied() {
    return this == APPLIED;
  }
}
