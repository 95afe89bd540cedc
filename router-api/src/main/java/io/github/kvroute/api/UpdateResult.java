package io.github.kvroute.api;

/**
 * What the router did with a snapshot, KV event or outcome. A KV event or report for a replica id the
 * router has not seen introduces that replica (events may precede the first report). Situations that happen in production (a
 * late message from a dead process, a duplicated outcome) are answered with a value and change nothing;
 * only programming errors throw.
 */
public enum UpdateResult {
  /** Applied. */
  APPLIED,
  /**
   * From an older epoch than the replica's current one, or from a replica the host removed (at or below
   * its last epoch): ignored.
   */
  STALE_EPOCH,
  /** Observed before the report the router already holds for the same epoch: ignored. */
  OUT_OF_ORDER,
  /**
   * An outcome for an attempt the router has no record of: never routed by this router, or closed so
   * long ago (more than twice the lease timeout) that it was forgotten. Ignored.
   */
  UNKNOWN_REQUEST,
  /**
   * An outcome for an attempt whose lease is already closed: reported twice, or ended by orphaning or
   * expiry. Ignored.
   */
  DUPLICATE,
  /** An outcome naming another replica or epoch than its lease: ignored. */
  MISMATCHED_REPLICA;

  public boolean isApplied() {
    return this == APPLIED;
  }
}
