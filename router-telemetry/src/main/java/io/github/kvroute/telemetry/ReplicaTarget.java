package io.github.kvroute.telemetry;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * One replica to scrape: its id and model as the router knows them, the engine's base URI, which
 * engine's metric names it exports, and the paths read on each scrape.
 *
 * <pre>{@code
 * ReplicaTarget.of("r0", "llama-3-8b", URI.create("http://10.0.0.5:8000"), EngineMetrics.VLLM)
 * }</pre>
 *
 * <p>Each scrape reads {@link #metricsPath()} (required), {@link #healthPath()} when set (2xx: READY;
 * 404, no such endpoint: READY; any other status: STARTING, not routable) and {@link #modelsPath()} when set (vLLM's
 * {@code /v1/models}: the loaded LoRA adapters). The constructor throws
 * {@code IllegalArgumentException} for a blank id or model, a base URI without scheme or host, or a
 * path not starting with {@code /}. Immutable and thread-safe.
 *
 * @param replicaId the replica's id in the router
 * @param model the model it serves, as the router's requests name it
 * @param baseUri scheme, host and port of the engine's HTTP server
 * @param engine whose metric names it exports
 * @param metricsPath the Prometheus endpoint, {@code /metrics}
 * @param healthPath the health endpoint ({@code /health}), or null to skip it (then a successful scrape
 *     means READY)
 * @param modelsPath the model list ({@code /v1/models}), or null to skip it (then no adapters are
 *     reported)
 */
public record ReplicaTarget(String replicaId, String model, URI baseUri, EngineMetrics engine,
    String metricsPath, String healthPath, String modelsPath) {

  /**
   * Validates the target: non-blank id and model, a base URI with a scheme and a host, an engine,
   * and paths that start with {@code /} (else {@code IllegalArgumentException} or
   * {@code NullPointerException}).
   *
   * @param replicaId the replica's id in the router
   * @param model the model it serves, as the router's requests name it
   * @param baseUri scheme, host and port of the engine's HTTP server
   * @param engine whose metric names it exports
   * @param metricsPath the Prometheus endpoint, {@code /metrics}
   * @param healthPath the health endpoint ({@code /health}), or null to skip it (then a successful
   *     scrape means READY)
   * @param modelsPath the model list ({@code /v1/models}), or null to skip it (then no adapters are
   *     reported)
   */
  public ReplicaTarget {
    requireText(replicaId, "replicaId");
    requireText(model, "model");
    Objects.requireNonNull(baseUri, "baseUri: null (expected: http://host:port)");
    if (baseUri.getScheme() == null || baseUri.getHost() == null) {
      throw new IllegalArgumentException("baseUri: " + baseUri + " (expected: http://host:port)");
    }
    Objects.requireNonNull(engine, "engine: null (expected: EngineMetrics.VLLM or SGLANG)");
    requirePath(metricsPath, "metricsPath");
    if (healthPath != null) {
      requirePath(healthPath, "healthPath");
    }
    if (modelsPath != null) {
      requirePath(modelsPath, "modelsPath");
    }
  }

  /**
   * A target with the engine's usual paths: {@code /metrics}, {@code /health}, and for vLLM
   * {@code /v1/models}.
   *
   * @param replicaId the replica's id in the router
   * @param model the model it serves, as requests name it
   * @param baseUri scheme, host and port of the engine's HTTP server
   * @param engine whose metric names it exports
   * @return the target
   */
  public static ReplicaTarget of(String replicaId, String model, URI baseUri, EngineMetrics engine) {
    return new ReplicaTarget(replicaId, model, baseUri, engine, "/metrics", "/health",
        engine != null && engine.listsAdapters() ? "/v1/models" : null);
  }

  /**
   * {@return this target with another health path, or none}
   *
   * @param path an absolute path, or null to skip the health check (a successful scrape is READY)
   */
  public ReplicaTarget withHealthPath(String path) {
    return new ReplicaTarget(replicaId, model, baseUri, engine, metricsPath, path, modelsPath);
  }

  /**
   * {@return this target with another model-list path, or none}
   *
   * @param path an absolute path, or null to report no adapters
   */
  public ReplicaTarget withModelsPath(String path) {
    return new ReplicaTarget(replicaId, model, baseUri, engine, metricsPath, healthPath, path);
  }

  /**
   * {@return this target with another metrics path}
   *
   * @param path an absolute path, e.g. {@code /metrics}
   */
  public ReplicaTarget withMetricsPath(String path) {
    return new ReplicaTarget(replicaId, model, baseUri, engine, path, healthPath, modelsPath);
  }

  URI metricsUri() {
    return baseUri.resolve(metricsPath);
  }

  Optional<URI> healthUri() {
    return Optional.ofNullable(healthPath).map(baseUri::resolve);
  }

  Optional<URI> modelsUri() {
    return Optional.ofNullable(modelsPath).map(baseUri::resolve);
  }

  private static void requireText(String s, String name) {
    if (s == null || s.isBlank()) {
      throw new IllegalArgumentException(name + ": " + (s == null ? "null" : "'" + s + "'")
          + " (expected: non-blank)");
    }
  }

  private static void requirePath(String path, String name) {
    if (path == null || !path.startsWith("/")) {
      throw new IllegalArgumentException(name + ": " + path + " (expected: an absolute path like /metrics)");
    }
  }
}
