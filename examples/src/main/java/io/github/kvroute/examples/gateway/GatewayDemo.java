package io.github.kvroute.examples.gateway;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.core.Admission;
import io.github.kvroute.core.Router;
import io.github.kvroute.examples.emulator.EmulatedFleet;
import io.github.kvroute.examples.emulator.EngineModel;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A running gateway demo: an {@link OpenAiGateway} with its router and {@link VllmMetricsPoller}, in
 * front of either an {@link EmulatedFleet} it started or replicas given by URI. The router is built
 * from the given builder with an {@link InFlightAttempts} as its listener (so the builder must have
 * none of its own).
 *
 * <pre>{@code
 * try (GatewayDemo demo = GatewayDemo.emulated(4, "demo-model", EngineModel.scaledDown(),
 *     Router.newBuilder().policy("hybrid-cost"), 8080)) {
 *   // OpenAI clients use demo.gateway().uri() + "/v1"
 * }
 * }</pre>
 *
 * <p>Thread-safety: thread-safe; {@link #close()} stops everything it started.
 */
public final class GatewayDemo implements AutoCloseable {
  /** How often the demo scrapes each replica's {@code /metrics}. */
  public static final Duration DEFAULT_SCRAPE_INTERVAL = Duration.ofMillis(200);

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
   * of them (0 for any free port), scraping every {@link #DEFAULT_SCRAPE_INTERVAL}.
   */
  public static GatewayDemo emulated(int replicas, String model, EngineModel engine,
      Router.Builder router, int port) {
    return emulated(replicas, model, engine, router, port, DEFAULT_SCRAPE_INTERVAL);
  }

  /** As {@link #emulated(int, String, EngineModel, Router.Builder, int)}, scraping every {@code scrape}. */
  public static GatewayDemo emulated(int replicas, String model, EngineModel engine,
      Router.Builder router, int port, Duration scrape) {
    return around(EmulatedFleet.start(replicas, model, engine), router, port, scrape);
  }

  /**
   * A gateway on {@code port} in front of a started {@code fleet}, which the demo then owns (stops on
   * close, or at once if the gateway fails to start).
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

  /** A gateway on {@code port} in front of running replicas of {@code model}, by id and base URI. */
  public static GatewayDemo external(Map<String, URI> replicas, String model,
      Router.Builder router, int port) {
    return start(null, replicas, model, router, port, DEFAULT_SCRAPE_INTERVAL);
  }

  private static GatewayDemo start(EmulatedFleet fleet, Map<String, URI> replicas, String model,
      Router.Builder routerBuilder, int port, Duration scrape) {
    checkNotNull(routerBuilder, "router: null (expected: a Router.Builder)");
    checkArgument(!replicas.isEmpty(), "replicas: none (expected: at least one)");
    InFlightAttempts attempts = new InFlightAttempts();
    Router router = routerBuilder.listener(attempts).build();
    VllmMetricsPoller poller = new VllmMetricsPoller(router, replicas, model, scrape);
    OpenAiGateway.Builder b = OpenAiGateway.newBuilder().router(router).telemetry(poller)
        .attempts(attempts).port(port);
    replicas.forEach(b::replica);
    OpenAiGateway gateway = b.build();
    try {
      gateway.start();
    } catch (RuntimeException e) {
      poller.close();
      router.close();
      throw e;
    }
    return new GatewayDemo(fleet, router, gateway);
  }

  /**
   * The demo's admission: the router's standard one, with batch requests ({@code service_tier:
   * flex}) shed once the least-loaded replica's predicted queue passes {@code batchQueueLimit}.
   */
  public static AdmissionController admission(Duration batchQueueLimit) {
    return Admission.newBuilder()
        .queueLimit(io.github.kvroute.api.Priority.BATCH, batchQueueLimit).build();
  }

  public OpenAiGateway gateway() {
    return gateway;
  }

  public Router router() {
    return router;
  }

  /** The emulated fleet, or null when the replicas were given by URI. */
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
