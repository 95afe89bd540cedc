package io.github.kvroute.telemetry.vllm;

import java.util.OptionalLong;

/**
 * The current epoch of a replica, stamped on its KV events: the same epoch its snapshots report, or the
 * router ignores the events. {@code PrometheusPoller::epoch} is one.
 *
 * <p>Thread-safety: called from the subscriber's thread; implementations must be thread-safe.
 */
@FunctionalInterface
public interface EpochSource {
  /**
   * {@return the replica's epoch now; empty when not known yet (its events are then dropped and
   * counted)}
   *
   * @param replicaId the replica whose event is being numbered
   */
  OptionalLong epoch(String replicaId);

  /**
   * {@return a source that puts every replica at epoch {@code epoch}}
   *
   * @param epoch the epoch the host's snapshots carry for every replica
   */
  static EpochSource fixed(long epoch) {
    OptionalLong e = OptionalLong.of(epoch);
    return replicaId -> e;
  }
}
