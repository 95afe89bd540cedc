package io.github.kvroute.examples.gateway;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.collect.ImmutableMap;
import com.linecorp.armeria.client.ClientFactory;
import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpResponseWriter;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.github.kvroute.api.Priority;
import io.github.kvroute.api.Request;
import io.github.kvroute.core.Router;
import io.github.kvroute.examples.openai.OpenAiBody;
import io.github.kvroute.telemetry.PrometheusPoller;
import io.github.kvroute.telemetry.ScrapeStatus;
import io.github.kvroute.telemetry.vllm.VllmKvEventSubscriber;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * An OpenAI-compatible gateway in front of a fleet of model-server replicas, routing every request
 * with a kvroute {@link Router}: {@code POST /v1/completions} and {@code POST /v1/chat/completions},
 * streamed or not, plus {@code GET /health}.
 *
 * <p>For each request it builds a kvroute {@code Request} whose prompt key its {@link PromptKeyer}
 * makes (by default {@link PromptKeyer#approximate} in the router's block size: the prompt text; with
 * KV events, {@link PromptKeyer#exact}: the engines' own block hashes), asks the router for a replica, and forwards the body there unchanged (a stream also asks for the
 * usage chunk, which reaches the client only if it asked too). It reports the first streamed token
 * ({@code Router.onFirstToken}) and the attempt's outcome with its epoch, cached tokens
 * ({@code usage.prompt_tokens_details.cached_tokens}), TTFT and output tokens
 * ({@code Router.onOutcome}).
 *
 * <p><b>Retries.</b> An attempt that fails before anything reached the client (connection refused or
 * reset, timeout, a 5xx, or the replica's own 429/503) is reported as failed and the request is routed
 * again as {@code request.nextAttempt()}, up to {@code maxAttempts}; after a connection failure or a
 * timeout the replica is scraped again first ({@link PrometheusPoller#scrapeAsync}; a refused
 * connection reports it stopped when the poller was built with
 * {@link PrometheusPoller.Builder#reportStoppedOnRefusal}), so the router already knows the replica is
 * gone and places the retry elsewhere. An attempt the router orphans (its replica reported stopped or restarted, see
 * {@link InFlightAttempts}) is abandoned and retried the same way. A stream is committed to its replica once its first token is forwarded: a
 * failure after that ends the client's stream with an error event (the tokens sent cannot be taken
 * back), and counts as failed.
 *
 * <p><b>Admission.</b> A request the router rejects is answered at once: 503 when no replica is
 * eligible ({@code NO_CANDIDATES}), else 429; both with {@code Retry-After} (whole seconds, rounded up)
 * and {@code retry-after-ms} when the router gave a retry-after.
 *
 * <p><b>Telemetry.</b> The gateway runs its router's telemetry: a {@link PrometheusPoller} scraping
 * every replica, and optionally a {@link VllmKvEventSubscriber} on the replicas' KV events (exact
 * mode). {@link #start()} scrapes every replica once, then subscribes both to the router;
 * {@link #close()} closes them.
 *
 * <p>Thread-safety: thread-safe; build, {@link #start()}, then serve from Armeria's event loops.
 */
public final class OpenAiGateway implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  private final Router router;
  private final PrometheusPoller poller;
  /** The replicas' KV events, or null (approximate mode). */
  private final VllmKvEventSubscriber kvEvents;
  private final PromptKeyer keyer;
  private final InFlightAttempts attempts;
  private final ImmutableMap<String, WebClient> clients;
  private final int maxAttempts;
  private final Server server;
  private final AtomicLong ids = new AtomicLong();
  final Counters counters = new Counters();

  private OpenAiGateway(Builder b) {
    this.router = b.router;
    this.poller = b.poller;
    this.kvEvents = b.kvEvents;
    this.keyer = b.keyer;
    this.attempts = b.attempts;
    this.maxAttempts = b.maxAttempts;
    ImmutableMap.Builder<String, WebClient> clients = ImmutableMap.builder();
    b.replicas.forEach((id, uri) -> clients.put(id, WebClient.builder(uri)
        .factory(ClientFactory.ofDefault())
        .responseTimeout(b.upstreamTimeout)
        .maxResponseLength(0) // streams are forwarded, not buffered; bodies are bounded below
        .build()));
    this.clients = clients.build();
    this.server = Server.builder()
        .http(new InetSocketAddress(InetAddress.getLoopbackAddress(), b.port))
        .requestTimeout(Duration.ZERO) // a stream lasts as long as its generation
        .gracefulShutdownTimeout(Duration.ZERO, Duration.ZERO)
        .service("/v1/completions", (ctx, req) -> serve(ctx, req, false))
        .service("/v1/chat/completions", (ctx, req) -> serve(ctx, req, true))
        .service("/health", (ctx, req) -> HttpResponse.of(HttpStatus.OK))
        .build();
  }

  /** {@return a builder: router, telemetry and at least one replica are required} */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * Scrapes every replica once (the router knows them all when this returns), subscribes the poller
   * and the KV-event subscriber to the router (events after the first scrapes, whose epochs they
   * carry), then starts the HTTP server.
   *
   * @return this gateway, serving
   */
  public OpenAiGateway start() {
    CompletableFuture.allOf(clients.keySet().stream().map(id -> poller.scrapeAsync(id, router))
        .toArray(CompletableFuture[]::new)).join();
    poller.subscribe(router);
    if (kvEvents != null) {
      kvEvents.subscribe(router);
    }
    server.start().join();
    return this;
  }

  /** {@return the gateway's base URI, {@code http://127.0.0.1:PORT}; OpenAI clients take {@code uri() + "/v1"}} */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.activeLocalPort());
  }

  /** {@return the router deciding every request's replica} */
  public Router router() {
    return router;
  }

  /** {@return the replicas' scrapes: each replica's {@code ScrapeStatus}} */
  public PrometheusPoller poller() {
    return poller;
  }

  /** {@return the replicas' KV-event streams, when the gateway runs in exact mode} */
  public Optional<VllmKvEventSubscriber> kvEvents() {
    return Optional.ofNullable(kvEvents);
  }

  /** {@return the gateway's totals now} */
  public GatewayStats stats() {
    return new GatewayStats(counters.requests.sum(), counters.completed.sum(),
        counters.retries.sum(), counters.rejected.sum(), counters.unavailable.sum(),
        counters.failed.sum(), counters.cancelled.sum());
  }

  /** Stops serving and closes the poller and the KV-event subscriber; the router is the caller's. */
  @Override
  public void close() {
    closeAsync().join();
  }

  /**
   * Starts {@link #close()}: telemetry stops at once.
   *
   * @return a future that completes when the server's threads have stopped
   */
  public CompletableFuture<Void> closeAsync() {
    if (kvEvents != null) {
      kvEvents.close();
    }
    poller.close();
    return server.stop().thenRun(() -> {});
  }

  private HttpResponse serve(ServiceRequestContext ctx,
      com.linecorp.armeria.common.HttpRequest req, boolean chat) {
    HttpResponseWriter out = HttpResponse.streaming();
    req.aggregate().thenAccept(agg -> {
      OpenAiBody parsed;
      try {
        parsed = OpenAiBody.parse(JSON.readTree(agg.contentUtf8()), chat);
      } catch (IOException | IllegalArgumentException e) {
        Exchange.replyError(out, HttpStatus.BAD_REQUEST, e.getMessage(), null);
        return;
      }
      counters.requests.increment();
      Request request;
      try {
        request = request(parsed, "gw-" + ids.incrementAndGet());
      } catch (RuntimeException e) {
        // a host's keyer (its tokenizer) failed: contained, and said to the client
        counters.failed.increment();
        Exchange.replyError(out, HttpStatus.INTERNAL_SERVER_ERROR,
            "prompt keying failed: " + e, null);
        return;
      }
      new Exchange(this, ctx, parsed, request, out).start();
    });
    return out;
  }

  /**
   * The kvroute request the gateway routes for {@code body}: its model, prompt key, output limit and
   * priority ({@code service_tier}: {@code flex} is {@link Priority#BATCH}, {@code priority} is
   * {@link Priority#INTERACTIVE}, anything else standard).
   *
   * @param body a parsed request body
   * @param id the request's id, unique among the router's requests in flight
   * @return the request's first attempt
   * @throws RuntimeException what the {@link PromptKeyer} throws
   */
  public Request request(OpenAiBody body, String id) {
    Priority priority = switch (body.serviceTier()) {
      case "flex" -> Priority.BATCH;
      case "priority" -> Priority.INTERACTIVE;
      default -> Priority.STANDARD;
    };
    return Request.newBuilder().id(id).model(body.model()).priority(priority)
        .prompt(keyer.key(body)).maxOutputTokens(body.maxTokens()).build();
  }

  /**
   * Scrapes {@code replicaId} again, so that the router learns at once that it stopped; the future
   * completes when the router has the report, never exceptionally.
   */
  CompletableFuture<ScrapeStatus> refresh(String replicaId) {
    return poller.scrapeAsync(replicaId, router);
  }

  InFlightAttempts attempts() {
    return attempts;
  }

  WebClient client(String replicaId) {
    return clients.get(replicaId);
  }

  int maxAttempts() {
    return maxAttempts;
  }

  /** The gateway's counters. Thread-safe (adders). */
  static final class Counters {
    final LongAdder requests = new LongAdder();
    final LongAdder completed = new LongAdder();
    final LongAdder retries = new LongAdder();
    final LongAdder rejected = new LongAdder();
    final LongAdder unavailable = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder cancelled = new LongAdder();
  }

  /** Builds an {@link OpenAiGateway}. Not thread-safe. */
  public static final class Builder {
    private Router router;
    private PrometheusPoller poller;
    private VllmKvEventSubscriber kvEvents;
    private PromptKeyer keyer;
    private InFlightAttempts attempts = new InFlightAttempts();
    private final Map<String, URI> replicas = new LinkedHashMap<>();
    private int port;
    private int maxAttempts = 3;
    private Duration upstreamTimeout = Duration.ofMinutes(5);

    private Builder() {}

    /**
     * Required: the router deciding every request's replica.
     *
     * @param router built; the caller closes it after the gateway
     * @return this builder
     */
    public Builder router(Router router) {
      this.router = checkNotNull(router, "router: null (expected: non-null)");
      return this;
    }

    /**
     * Required: the poller scraping every replica the gateway forwards to, not yet subscribed; the
     * gateway subscribes it to the router on {@link OpenAiGateway#start} and closes it on close.
     * Build it with {@link PrometheusPoller.Builder#reportStoppedOnRefusal} so that a retry after a
     * refused connection is routed knowing the replica is gone.
     *
     * @param poller scraping (at least) every replica added with {@link #replica}
     * @return this builder
     */
    public Builder telemetry(PrometheusPoller poller) {
      this.poller = checkNotNull(poller, "telemetry: null (expected: a PrometheusPoller)");
      return this;
    }

    /**
     * The replicas' KV events (exact mode), not yet subscribed: subscribed after the first scrapes,
     * closed with the gateway. Give with it a {@link PromptKeyer#exact} keyer whose keys are the
     * engines' hashes, in the namespace its streams are mapped to ({@link PromptKeyer#namespace}).
     * Default none.
     *
     * @param subscriber with {@code epochs(poller::epoch)}, so that events carry the snapshots' epochs
     * @return this builder
     */
    public Builder kvEvents(VllmKvEventSubscriber subscriber) {
      this.kvEvents = checkNotNull(subscriber, "kvEvents: null (expected: a VllmKvEventSubscriber)");
      return this;
    }

    /**
     * How prompts are keyed; default {@link PromptKeyer#approximate} in the router's block size.
     *
     * @param keyer in the router's block size
     * @return this builder
     */
    public Builder promptKeyer(PromptKeyer keyer) {
      this.keyer = checkNotNull(keyer, "promptKeyer: null (expected: a PromptKeyer)");
      return this;
    }

    /**
     * Where the gateway records its attempts in flight; give the same instance to the router as its
     * listener, so that attempts the router orphans are retried. Default: a private one, which the
     * router never calls (attempts are then retried only on errors).
     *
     * @param attempts the router's listener too
     * @return this builder
     */
    public Builder attempts(InFlightAttempts attempts) {
      this.attempts = checkNotNull(attempts, "attempts: null (expected: non-null)");
      return this;
    }

    /**
     * Adds a replica the router may name, at base URI {@code uri}. At least one is required.
     *
     * @param replicaId the id the router and the poller know it by
     * @param uri its base URI, {@code http://host:8000}
     * @return this builder
     */
    public Builder replica(String replicaId, URI uri) {
      checkNotNull(replicaId, "replicaId: null (expected: non-null)");
      checkNotNull(uri, "uri: null (expected: the replica's base URI)");
      checkArgument(replicas.putIfAbsent(replicaId, uri) == null,
          "replicaId: %s (expected: added once)", replicaId);
      return this;
    }

    /**
     * The loopback port to listen on; 0 (the default) picks a free one.
     *
     * @param port 0 to 65535
     * @return this builder
     */
    public Builder port(int port) {
      checkArgument(port >= 0 && port <= 65_535, "port: %s (expected: 0 to 65535)", port);
      this.port = port;
      return this;
    }

    /**
     * Attempts per request, the first included; default 3.
     *
     * @param attempts 1 to 10
     * @return this builder
     */
    public Builder maxAttempts(int attempts) {
      checkArgument(attempts >= 1 && attempts <= 10, "maxAttempts: %s (expected: 1 to 10)", attempts);
      this.maxAttempts = attempts;
      return this;
    }

    /**
     * How long one attempt may take end to end; default 5 minutes.
     *
     * @param timeout positive; past it the attempt fails with {@code TIMEOUT} and is retried
     * @return this builder
     */
    public Builder upstreamTimeout(Duration timeout) {
      checkArgument(timeout != null && !timeout.isNegative() && !timeout.isZero(),
          "upstreamTimeout: %s (expected: > 0)", timeout);
      this.upstreamTimeout = timeout;
      return this;
    }

    /**
     * Builds the gateway; nothing runs until {@link OpenAiGateway#start}.
     *
     * @return the gateway
     * @throws IllegalStateException if the router, the telemetry or every replica is missing, a
     *     replica is not one the poller scrapes, or the keyer's block size is not the router's
     */
    public OpenAiGateway build() {
      checkState(router != null, "router: unset (expected: set before build)");
      checkState(poller != null, "telemetry: unset (expected: set before build)");
      checkState(!replicas.isEmpty(), "replicas: none (expected: at least one)");
      Set<String> scraped = poller.statuses().keySet();
      for (String id : replicas.keySet()) {
        checkState(scraped.contains(id), "replica %s: not scraped by the poller (expected: one of %s)",
            id, scraped);
      }
      if (keyer == null) {
        keyer = PromptKeyer.approximate(router.blockSizeTokens());
      }
      checkState(keyer.blockSizeTokens() == router.blockSizeTokens(),
          "promptKeyer: block size %s (expected: the router's, %s)", keyer.blockSizeTokens(),
          router.blockSizeTokens());
      return new OpenAiGateway(this);
    }
  }
}
