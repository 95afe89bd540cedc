package io.github.kvroute.examples.gateway;

import java.util.concurrent.CompletableFuture;

/**
 * Where the gateway's router learns each replica's state and load: something that keeps feeding it
 * {@code ReplicaSnapshot}s, and can be asked to look at one replica again at once (after a
 * connection to it failed, so that a retry is routed on fresh news).
 *
 * <p>Thread-safety: implementations must be thread-safe.
 */
public interface ReplicaTelemetry extends AutoCloseable {

  /** Starts feeding the router; the first report of every replica has arrived when this returns. */
  void start();

  /**
   * Reports {@code replicaId} again now; the future completes once the router has the report (or
   * the report of its failure). Never completes exceptionally.
   */
  CompletableFuture<Void> refresh(String replicaId);

  /** Stops feeding the router. */
  @Override
  void close();
}
