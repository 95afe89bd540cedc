package io.github.kvroute.advisors;

import java.util.Optional;

/**
 * The autoscaling advice at one moment.
 *
 * <p>Immutable and thread-safe.
 *
 * @param atNanos when, on the advisor's ticker
 * @param replicas how many replicas the fleet should have
 * @param previousReplicas what the advice said before this change ({@code replicas} when unchanged)
 * @param removeReplica for a scale-down, the replica whose warm cache is least valuable
 * @param loadNow the latest bucket's work, in replicas' worth (engine-seconds per second)
 * @param forecastLoad the work forecast one cold start ahead, in replicas' worth
 * @param queueDelayMillis the queueing delay observed last
 * @param kvUtilization the KV usage observed last
 * @param reason why the advice is what it is, one line
 */
public record ScaleAdvice(long atNanos, int replicas, int previousReplicas,
    Optional<String> removeReplica, double loadNow, double forecastLoad, double queueDelayMillis,
    double kvUtilization, String reason) {

  /** {@return whether this advice changed the replica count} */
  public boolean isChange() {
    return replicas != previousReplicas;
  }
}
