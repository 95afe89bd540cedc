package io.github.kvroute.api;

/**
 * What the router did with a snapshot, KV event or outcome. Situations that happen in production (a
 * late message from a dead process, a duplicated outcome) are answered with a value and change nothing;
 * only programming errors throw.
 */
public enum UpdateResult {
  /** Applied. */
  APPLIED,
  /** From an older epoch than the replica's current one: ignored. */
  STALE_EPOCH,
  /** Observed before the report the router already holds for the same epoch: ignored. */
  OUT_OF_ORDER,
  /** Names a replica the router does not know: ignored. */
  UNKNOWN_REPLICA,
  /** An outcome for an attempt that has no lease (never routed here, or expired): ignored. */
  UNKNOWN_REQUEST,
  /** An outcome for an attempt whose lease is already closed (reported twice, orphaned or expired). */
  DUPLICATE,
  /** An outcome naming another replica or epoch than its lease: ignored. */
  MISMATCHED_REPLICA;

  public boolean isApplied() {
    return this == APPLIED;
  }
}
