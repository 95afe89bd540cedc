package io.github.kvroute.api;

/**
 * Lifecycle of one model-server process, as its telemetry reports it. Only {@link #READY} replicas
 * receive new requests; a {@link #DRAINING} replica finishes what it holds.
 */
public enum ReplicaState {
  /** Loading weights, building graphs, warming caches: not routable yet. */
  STARTING,
  /** Serving. */
  READY,
  /** No new traffic; in-flight requests complete. */
  DRAINING,
  /** Gone. Its in-flight requests are orphaned and reported to the host for retry. */
  STOPPED
}
