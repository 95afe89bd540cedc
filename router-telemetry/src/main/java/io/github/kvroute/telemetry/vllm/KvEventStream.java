package io.github.kvroute.telemetry.vllm;

import io.github.kvroute.api.CacheNamespace;
import java.util.Objects;
import java.util.Optional;

/**
 * One replica's vLLM KV-event stream: where it is published, where its replay socket is, which topic,
 * and the cache namespace its block hashes are keyed in.
 *
 * <pre>{@code
 * // vllm serve ... --kv-events-config '{"enable_kv_cache_events": true, "publisher": "zmq",
 * //     "endpoint": "tcp://*:5557", "replay_endpoint": "tcp://*:5558", "topic": "kv-events"}'
 * KvEventStream.of("r0", "tcp://10.0.0.5:5557", CacheNamespace.of("llama-3-8b"))
 *     .withReplay("tcp://10.0.0.5:5558")
 *     .withTopic("kv-events")
 * }</pre>
 *
 * <p>The namespace must be the one the gateway keys its requests in with
 * {@link io.github.kvroute.api.PromptKey#ofBlockHashes}: every event of the stream is mapped into it,
 * adapters included (vLLM's block hashes already cover the LoRA name and cache salt, and its
 * {@code BlockRemoved} does not say which adapter a block was stored for). Immutable and thread-safe.
 *
 * @param replicaId the replica's id in the router
 * @param endpoint the ZeroMQ PUB endpoint to connect to ({@code tcp://host:5557})
 * @param replayEndpoint the ROUTER replay endpoint ({@code tcp://host:5558}), or null when none
 * @param topic the topic subscribed to; {@code ""} (vLLM's default) receives every topic
 * @param namespace the cache namespace the engine hashes are mapped into; must not be keyed
 */
public record KvEventStream(String replicaId, String endpoint, String replayEndpoint, String topic,
    CacheNamespace namespace) {

  /**
   * Validates the stream (else {@code IllegalArgumentException} or {@code NullPointerException}): a
   * non-blank replica id, ZeroMQ endpoints ({@code tcp://}, {@code ipc://} or {@code inproc://}), a
   * non-null topic and an unkeyed namespace.
   *
   * @param replicaId the replica's id in the router
   * @param endpoint the ZeroMQ PUB endpoint to connect to ({@code tcp://host:5557})
   * @param replayEndpoint the ROUTER replay endpoint ({@code tcp://host:5558}), or null when none
   * @param topic the topic subscribed to; {@code ""} (vLLM's default) receives every topic
   * @param namespace the cache namespace the engine hashes are mapped into; must not be keyed
   */
  public KvEventStream {
    if (replicaId == null || replicaId.isBlank()) {
      throw new IllegalArgumentException("replicaId: " + replicaId + " (expected: non-blank)");
    }
    requireEndpoint(endpoint, "endpoint");
    if (replayEndpoint != null) {
      requireEndpoint(replayEndpoint, "replayEndpoint");
    }
    Objects.requireNonNull(topic, "topic: null (expected: a topic, \"\" for all)");
    Objects.requireNonNull(namespace, "namespace: null (expected: the namespace requests are keyed in)");
    if (namespace.isKeyed()) {
      throw new IllegalArgumentException("namespace: " + namespace
          + " (expected: unkeyed; engine hashes are unkeyed, so exact mode cannot be keyed)");
    }
  }

  /**
   * {@return a stream with no replay socket, subscribed to every topic}
   *
   * @param replicaId the replica's id in the router
   * @param endpoint the PUB endpoint, {@code tcp://host:5557}
   * @param namespace the namespace requests are keyed in; unkeyed
   */
  public static KvEventStream of(String replicaId, String endpoint, CacheNamespace namespace) {
    return new KvEventStream(replicaId, endpoint, null, "", namespace);
  }

  /**
   * {@return this stream with vLLM's replay socket, used to fill sequence gaps}
   *
   * @param replayEndpoint vLLM's {@code replay_endpoint}, {@code tcp://host:5558}
   */
  public KvEventStream withReplay(String replayEndpoint) {
    return new KvEventStream(replicaId, endpoint,
        Objects.requireNonNull(replayEndpoint, "replayEndpoint"), topic, namespace);
  }

  /**
   * {@return this stream subscribed to {@code topic} only}
   *
   * @param topic vLLM's {@code topic}; {@code ""} for every topic
   */
  public KvEventStream withTopic(String topic) {
    return new KvEventStream(replicaId, endpoint, replayEndpoint, topic, namespace);
  }

  /** {@return the replay endpoint, when the stream has one} */
  public Optional<String> replay() {
    return Optional.ofNullable(replayEndpoint);
  }

  private static void requireEndpoint(String endpoint, String name) {
    if (endpoint == null || !endpoint.matches("(tcp|ipc|inproc)://.+")) {
      throw new IllegalArgumentException(name + ": " + endpoint
          + " (expected: a ZeroMQ endpoint like tcp://host:5557)");
    }
  }
}
