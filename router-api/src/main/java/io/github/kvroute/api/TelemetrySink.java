package io.github.kvroute.api;

/**
 * Where telemetry goes: the router implements this. Hosts push reports as they parse them (for example
 * a replica's {@code /metrics}, or a KV-event subscription).
 *
 * <p>Thread-safety: implementations accept calls from any number of threads concurrently with routing.
 */
public interface TelemetrySink {

  /**
   * Applies a replica report; an older epoch or an older observation is ignored and said so.
   *
   * @param snapshot the report
   * @return what was done with it
   */
  UpdateResult onSnapshot(ReplicaSnapshot snapshot);

  /**
   * Applies a KV-cache change; an older epoch is ignored and said so.
   *
   * @param event the change
   * @return what was done with it
   */
  UpdateResult onKvEvent(KvEvent event);
}
