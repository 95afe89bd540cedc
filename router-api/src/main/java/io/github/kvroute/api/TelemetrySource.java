package io.github.kvroute.api;

/**
 * Something that delivers telemetry on its own schedule (a poller of replicas' metrics endpoints, a
 * Kafka/NATS/ZeroMQ consumer of KV events). The router subscribes its sink when built and closes the
 * subscription when closed.
 *
 * <p>Thread-safety: {@link #subscribe} may be called from any thread; the source may call the sink
 * from any thread.
 */
@FunctionalInterface
public interface TelemetrySource {

  /**
   * Starts delivering to {@code sink}; closing the returned handle stops delivery.
   *
   * @param sink where reports and events go
   * @return the subscription; close it to stop
   */
  AutoCloseable subscribe(TelemetrySink sink);
}
