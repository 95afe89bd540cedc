package io.github.kvroute.sim;

/**
 * A {@link FleetProbe} that also scales the fleet up, as an orchestrator following an autoscaler's
 * advice would: after each sample the simulation starts parked standby replicas
 * ({@link Scenario#standbyReplicas()}, in index order) until {@link #wantedReplicas()} are started;
 * each serves after the engine's cold start. It never stops a replica (scale-down is not simulated).
 *
 * <p>Thread-safety: called on the run's thread only.
 */
public interface FleetController extends FleetProbe {

  /** {@return replicas that should be running (started or starting) after the latest sample} */
  int wantedReplicas();
}
