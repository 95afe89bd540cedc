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
  /** The replica's epoch now; empty when not known yet (its events are then dropped and counted). */
  OptionalLong epoch(String replicaId);

  /** Every replica at epoch {@code epoch} (hosts whose snapshots carry a fixed epoch). */
  static EpochSource fixed(long epoch) {
    OptionalLong e = OptionalLong.of(epoch);
    return replicaId -> e;
  }
}
