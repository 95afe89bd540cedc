package io.github.kvroute.api;

import java.util.List;

/**
 * Observes what the router decides and learns: the hook for metrics (Micrometer, OpenTelemetry) and
 * logs, kept outside the core. Every method has an empty default; a router with no listener pays
 * nothing for this interface.
 *
 * <p>Thread-safety: methods are called from request and telemetry threads concurrently; implementations
 * must be thread-safe and fast. A listener that throws is contained (logged once, then ignored).
 */
public interface RouterListener {

  /** After every {@code route} call, routed or rejected. */
  default void onDecision(Request request, RoutingDecision decision) {}

  /** After every {@code onOutcome} call, with what the router did with it. */
  default void onOutcome(Outcome outcome, UpdateResult result) {}

  /** A replica joined, changed state, or left. {@code previous} is null for a new replica. */
  default void onReplicaStateChanged(
      String replicaId, long epoch, ReplicaState previous, ReplicaState current) {}

  /** A replica's process was replaced: its cache is cold and its old leases are orphaned. */
  default void onReplicaRestarted(String replicaId, long previousEpoch, long epoch) {}

  /**
   * Attempts in flight on a replica that stopped or restarted. The host should retry each with the same
   * request id and {@code attempt + 1}.
   */
  default void onOrphaned(String replicaId, long epoch, List<RequestRef> attempts) {}

  /** A lease expired with no outcome reported (a lost outcome, or a leak in the host). */
  default void onLeaseExpired(RequestRef attempt, String replicaId) {}

  default void onBreakerStateChanged(String replicaId, BreakerState previous, BreakerState current) {}

  /** A host plugin (policy, scorer, admission controller, listener) threw; the router contained it. */
  default void onPluginFailure(String plugin, Throwable error) {}
}
