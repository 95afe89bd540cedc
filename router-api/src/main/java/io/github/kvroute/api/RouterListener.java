package io.github.kvroute.api;

import java.util.List;

/**
 * Observes what the router decides and learns: the hook for metrics (Micrometer, OpenTelemetry) and
 * logs, kept outside the core. Every method has an empty default; a router with no listener pays
 * nothing for this interface.
 *
 * <p>A router may have several listeners ({@code Router.Builder.listener} adds one each time). Every
 * event goes to each of them in the order they were added, synchronously, on the thread whose call
 * caused it: {@link #onDecision} on the thread that called {@code route}; {@link #onOutcome} and
 * {@link #onTtftObserved} on the thread that reported the outcome; replica and breaker changes,
 * orphaned attempts and expired leases on whichever thread's call (a report, a route, an outcome, a
 * removal, a stats reading) observed them. Events of one thread arrive in the order they happened;
 * events from different threads may interleave in any order.
 *
 * <p>Thread-safety: methods are called from request and telemetry threads concurrently; implementations
 * must be thread-safe and fast (the caller waits). A listener that throws is contained: logged once,
 * counted in the router's plugin failures, reported to the other listeners'
 * {@link #onPluginFailure}, and the remaining listeners still hear of the event.
 */
public interface RouterListener {

  /**
   * After every {@code route} call, routed or rejected.
   *
   * @param request the request routed
   * @param decision what the router decided, after admission
   */
  default void onDecision(Request request, RoutingDecision decision) {}

  /**
   * After every {@code onOutcome} call, with what the router did with it.
   *
   * @param outcome the outcome reported
   * @param result what the router did with it
   */
  default void onOutcome(Outcome outcome, UpdateResult result) {}

  /**
   * A routed attempt's actual time to first token is known, beside what its decision predicted
   * ({@link RoutingDecision#cost()}'s total): called once for each outcome that closes an attempt
   * ({@link UpdateResult#APPLIED}) and carries a TTFT, or, when it carries none but the host reported
   * the attempt's first token ({@code Router.onFirstToken}), with the time from the route call to that
   * report on the router's ticker. Called just before {@link #onOutcome} for the same outcome. Attempts
   * with neither are not reported.
   *
   * @param attempt the attempt
   * @param replicaId the replica that served it (the decode replica of a pair)
   * @param predictedMillis the decision's predicted TTFT, in milliseconds
   * @param actualMillis the observed TTFT, in milliseconds
   */
  default void onTtftObserved(
      RequestRef attempt, String replicaId, double predictedMillis, double actualMillis) {}

  /**
   * A replica joined, changed state, or left. {@code previous} is null for a new replica.
   *
   * @param replicaId the replica's id
   * @param epoch its epoch now
   * @param previous its state before, or {@code null} for a new replica
   * @param current its state now
   */
  default void onReplicaStateChanged(
      String replicaId, long epoch, ReplicaState previous, ReplicaState current) {}

  /**
   * A replica's process was replaced: its cache is cold and its old leases are orphaned.
   *
   * @param replicaId the replica's id
   * @param previousEpoch the replaced process's epoch
   * @param epoch the new process's epoch
   */
  default void onReplicaRestarted(String replicaId, long previousEpoch, long epoch) {}

  /**
   * Attempts in flight on a replica that stopped or restarted. The host should retry each with the same
   * request id and {@code attempt + 1}.
   *
   * @param replicaId the replica's id
   * @param epoch the epoch the attempts were routed at
   * @param attempts the orphaned attempts
   */
  default void onOrphaned(String replicaId, long epoch, List<RequestRef> attempts) {}

  /**
   * A lease expired with no outcome reported (a lost outcome, or a leak in the host).
   *
   * @param attempt the attempt whose lease expired
   * @param replicaId the replica it was routed to
   */
  default void onLeaseExpired(RequestRef attempt, String replicaId) {}

  /**
   * A replica's circuit breaker opened, half-opened or closed.
   *
   * @param replicaId the replica's id
   * @param previous the breaker's state before
   * @param current the breaker's state now
   */
  default void onBreakerStateChanged(String replicaId, BreakerState previous, BreakerState current) {}

  /**
   * A host plugin (policy, scorer, admission controller, listener) threw; the router contained it.
   *
   * @param plugin the plugin's name
   * @param error what it threw
   */
  default void onPluginFailure(String plugin, Throwable error) {}
}
