package io.github.kvroute.examples.gateway;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.core.Admission;
import io.github.kvroute.core.Router;
import io.github.kvroute.examples.emulator.EmulatedFleet;
import io.github.kvroute.examples.emulator.EmulatedReplica;
import io.github.kvroute.examples.emulator.EmulatedTokenizer;
import io.github.kvroute.examples.emulator.EngineModel;
import io.github.kvroute.telemetry.EngineMetrics;
import io.github.kvroute.telemetry.PrometheusPoller;
import io.github.kvroute.telemetry.ReplicaTarget;
import io.github.kvroute.telemetry.vllm.KvEventStream;
import io.github.kvroute.telemetry.vllm.VllmKvEventSubscriber;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A running gateway demo: an {@link OpenAiGateway} with its router, {@link PrometheusPoller} and, in
 * exact mode, {@link VllmKvEventSubscriber}, in front of either an {@link EmulatedFleet} it started or
 * replicas given by URI. The router is built from the given builder with an {@link InFlightAttempts}
 * as its listener (so the builder must have none of its own).
 *
 * <pre>{@code
 * try (GatewayDemo demo = GatewayDemo.emulated(4, "demo-model", EngineModel.scaledDown(),
 *     Router.newBuilder().policy("hybrid-cost"), 8080)) {
 *   // OpenAI clients use demo.gateway().uri() + "/v1"
 * }
 * }</pre>
 *
 * <p><b>Modes.</b> In front of a fleet that publishes KV events
 * ({@code EmulatedFleet.start(..., true)}), the demo runs in <em>exact</em> mode: it subscribes to
 * every replica's stream (with its replay socket) and keys prompts with the engines' own block hashes
 * ({@link PromptKeyer#exact}: the emulated tokenizer, vLLM's {@code sha256_cbor} hashing), so the
 * router matches each request against what the replicas report they cache; the router's block size
 * is set to the engines'. Otherwise it runs in <em>approximate</em> mode ({@link
 * PromptKeyer#approximate}): prompts keyed by their text, the router guessing from what it routed. In
 * front of real replicas it always runs approximate: keying exactly needs their model's tokenizer.
 *
 * <p>Thread-safety: thread-safe; {@link #close()} stops everything it started.
 */
public final class GatewayDemo implements AutoCloseable {
  /** How often the demo scrapes each replica's {@code /metrics}. */
  public static final Duration DEFAULT_SCRAPE_INTERVAL = Duration.ofMillis(200);
  /** How long one scrape GET may take before it counts as failed. */
  public static final Duration SCRAPE_TIMEOUT = Duration.ofSeconds(2);

  private final EmulatedFleet fleet;
  private final Router router;
  private final OpenAiGateway gateway;

  private GatewayDemo(EmulatedFleet fleet, Router router, OpenAiGateway gateway) {
    this.fleet = fleet;
    this.router = router;
    this.gateway = gateway;
  }

  /**
   * Starts {@code replicas} emulated replicas of {@code model} and a gateway on {@code port} in front
   * of them (0 for any free port), scraping every {@link #DEFAULT_SCRAPE_INTERVAL}; approximate mode.
   *
   * @param replicas how many emulated replicas, 1 to 256
   * @param model the model they serve
   * @param engine how their engines spend time and memory
   * @param router the router's settings; the demo adds its listener (and, in exact mode, the engines'
   *     block size) and builds it
   * @param port the gateway's loopback port, 0 for any free one
   * @return the running demo
   */
  public static GatewayDemo emulated(int replicas, String model, EngineModel engine,
      Router.Builder router, int port) {
    return emulated(replicas, model, engine, router, port, DEFAULT_SCRAPE_INTERVAL);
  }

  /**
   * As {@link #emulated(int, String, EngineModel, Router.Builder, int)}, scraping every {@code scrape}.
   *
   * @param replicas how many emulated replicas, 1 to 256
   * @param model the model they serve
   * @param engine how their engines spend time and memory
   * @param router the router's settings; the demo adds its listener (and, in exact mode, the engines'
   *     block size) and builds it
   * @param port the gateway's loopback port, 0 for any free one
   * @param scrape time between two scrapes of a replica
   * @return the running demo
   */
  public static GatewayDemo emulated(int replicas, String model, EngineModel engine,
      Router.Builder router, int port, Duration scrape) {
    return around(EmulatedFleet.start(replicas, model, engine), router, port, scrape);
  }

  /**
   * A gateway on {@code port} in front of a started {@code fleet}, which the demo then owns (stops on
   * close, or at once if the gateway fails to start); exact mode when the fleet publishes KV events.
   *
   * @param fleet a started fleet, replicas named as {@link EmulatedFleet#name} names them
   * @param router the router's settings; the demo adds its listener (and, in exact mode, the engines'
   *     block size) and builds it
   * @param port the gateway's loopback port, 0 for any free one
   * @param scrape time between two scrapes of a replica
   * @return the running demo
   */
  public static GatewayDemo around(EmulatedFleet fleet, Router.Builder router, int port,
      Duration scrape) {
    String model = fleet.replica(0).model();
    Map<String, URI> uris = new LinkedHashMap<>();
    for (int i = 0; i < fleet.size(); i++) {
      uris.put(EmulatedFleet.name(i), fleet.replica(i).uri());
    }
    try {
      return start(fleet, uris, model, router, port, scrape);
    } catch (RuntimeException e) {
      fleet.close();
      throw e;
    }
  }

  /**
   * A gateway on {@code port} in front of running replicas of {@code model}, by id and base URI;
   * approximate mode.
   *
   * @param replicas each replica's id and base URI ({@code http://host:8000})
   * @param model the model they serve
   * @param router the router's settings; the demo adds its listener (and, in exact mode, the engines'
   *     block size) and builds it
   * @param port the gateway's loopback port, 0 for any free one
   * @return the running demo
   */
  public static GatewayDemo external(Map<String, URI> replicas, String model,
      Router.Builder router, int port) {
    return start(null, replicas, model, router, port, DEFAULT_SCRAPE_INTERVAL);
  }

  private static GatewayDemo start(EmulatedFleet fleet, Map<String, URI> replicas, String model,
      Router.Builder routerBuilder, int port, Duration scrape) {
    checkNotNull(routerBuilder, "router: null (expected: a Router.Builder)");
    checkArgument(!replicas.isEmpty(), "replicas: none (expected: at least one)");
    boolean exact = fleet != null && fleet.kvEventsContext().isPresent();
    EngineModel engine = fleet == null ? null : fleet.replica(0).engineModel();
    if (exact) {
      routerBuilder.blockSizeTokens(engine.blockSizeTokens());
    }
    InFlightAttempts attempts = new InFlightAttempts();
    Router router = routerBuilder.listener(attempts).build();
    PrometheusPoller.Builder poller = PrometheusPoller.builder().interval(scrape)
        .timeout(SCRAPE_TIMEOUT).reportStoppedOnRefusal(true);
    replicas.forEach((id, uri) -> poller.replica(ReplicaTarget.of(id, model, uri, EngineMetrics.VLLM)));
    OpenAiGateway.Builder b = OpenAiGateway.newBuilder().router(router).attempts(attempts).port(port);
    replicas.forEach(b::replica);
    PrometheusPoller scraper = poller.build();
    b.telemetry(scraper);
    VllmKvEventSubscriber events = exact ? kvEvents(fleet, scraper) : null;
    if (exact) {
      b.kvEvents(events).promptKeyer(PromptKeyer.exact(
          body -> EmulatedTokenizer.tokenIds(body.prompt(), engine.charsPerToken()),
          EmulatedTokenizer.hasher(engine)));
    }
    OpenAiGateway gateway;
    try {
      gateway = b.build();
      gateway.start();
    } catch (RuntimeException e) {
      if (events != null) {
        events.close();
      }
      scraper.close();
      router.close();
      throw e;
    }
    return new GatewayDemo(fleet, router, gateway);
  }

  /** A subscriber to every replica's KV events and replay socket, in the fleet's ZeroMQ context. */
  private static VllmKvEventSubscriber kvEvents(EmulatedFleet fleet, PrometheusPoller poller) {
    VllmKvEventSubscriber.Builder events = VllmKvEventSubscriber.builder()
        .epochs(poller::epoch).context(fleet.kvEventsContext().orElseThrow());
    for (int i = 0; i < fleet.size(); i++) {
      EmulatedReplica r = fleet.replica(i);
      events.stream(KvEventStream.of(EmulatedFleet.name(i), r.kvEventsEndpoint().orElseThrow(),
          PromptKeyer.namespace(r.model())).withReplay(r.kvEventsReplayEndpoint().orElseThrow()));
    }
    return events.build();
  }

  /**
   * The demo's admission: the router's standard one, with batch requests ({@code service_tier:
   * flex}) shed once the least-loaded replica's predicted queue passes {@code batchQueueLimit}.
   *
   * @param batchQueueLimit the predicted queue past which batch requests get 429
   * @return the admission controller, for {@code Router.Builder.admission}
   */
  public static AdmissionController admission(Duration batchQueueLimit) {
    return Admission.newBuilder()
        .queueLimit(io.github.kvroute.api.Priority.BATCH, batchQueueLimit).build();
  }

  /** {@return the running gateway} */
  public OpenAiGateway gateway() {
    return gateway;
  }

  /** {@return the router the demo built, closed with the demo} */
  public Router router() {
    return router;
  }

  /** {@return the emulated fleet, or null when the replicas were given by URI} */
  public EmulatedFleet fleet() {
    return fleet;
  }

  /** Stops the gateway and the fleet (in parallel), then the router. */
  @Override
  public void close() {
    CompletableFuture<Void> gatewayStopped = gateway.closeAsync();
    if (fleet != null) {
      fleet.closeAsync().join();
    }
    gatewayStopped.join();
    router.close();
  }
}
