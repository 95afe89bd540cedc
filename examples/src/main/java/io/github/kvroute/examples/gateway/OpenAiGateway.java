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
import io.github.kvroute.core.Router;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * An OpenAI-compatible gateway in front of a fleet of model-server replicas, routing every request
 * with a kvroute {@link Router}: {@code POST /v1/completions} and {@code POST /v1/chat/completions},
 * streamed or not, plus {@code GET /health}.
 *
 * <p>For each request it builds a kvroute {@code Request} whose prompt key hashes the prompt text
 * ({@code PromptKey.ofText}, four characters a token, in the router's block size, namespaced by model),
 * asks the router for a replica, and forwards the body there unchanged (a stream also asks for the
 * usage chunk, which reaches the client only if it asked too). It reports the first streamed token
 * ({@code Router.onFirstToken}) and the attempt's outcome with its epoch, cached tokens
 * ({@code usage.prompt_tokens_details.cached_tokens}), TTFT and output tokens
 * ({@code Router.onOutcome}).
 *
 * <p><b>Retries.</b> An attempt that fails before anything reached the client (connection refused or
 * reset, timeout, a 5xx, or the replica's own 429/503) is reported as failed and the request is routed
 * again as {@code request.nextAttempt()}, up to {@code maxAttempts}; after a connection failure the
 * replica's telemetry is refreshed first, so the router already knows the replica is gone and places
 * the retry elsewhere. An attempt the router orphans (its replica reported stopped or restarted, see
 * {@link InFlightAttempts}) is abandoned and retried the same way. A stream is committed to its replica once its first token is forwarded: a
 * failure after that ends the client's stream with an error event (the tokens sent cannot be taken
 * back), and counts as failed.
 *
 * <p><b>Admission.</b> A request the router rejects is answered at once: 503 when no replica is
 * eligible ({@code NO_CANDIDATES}), else 429; both with {@code Retry-After} (whole seconds, rounded up)
 * and {@code retry-after-ms} when the router gave a retry-after.
 *
 * <p>Thread-safety: thread-safe; build, {@link #start()}, then serve from Armeria's event loops.
 */
public final class OpenAiGateway implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  private final Router router;
  private final ReplicaTelemetry telemetry;
  private final InFlightAttempts attempts;
  private final ImmutableMap<String, WebClient> clients;
  private final int maxAttempts;
  private final Server server;
  private final AtomicLong ids = new AtomicLong();
  final Counters counters = new Counters();

  private OpenAiGateway(Builder b) {
    this.router = b.router;
    this.telemetry = b.telemetry;
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

  public static Builder newBuilder() {
    return new Builder();
  }

  /** Starts telemetry (its first reports reach the router), then the HTTP server. */
  public OpenAiGateway start() {
    telemetry.start();
    server.start().join();
    return this;
  }

  /** The gateway's base URI, {@code http://127.0.0.1:PORT}; OpenAI clients take {@code uri() + "/v1"}. */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.activeLocalPort());
  }

  public Router router() {
    return router;
  }

  /** The gateway's totals now. */
  public GatewayStats stats() {
    return new GatewayStats(counters.requests.sum(), counters.completed.sum(),
        counters.retries.sum(), counters.rejected.sum(), counters.unavailable.sum(),
        counters.failed.sum(), counters.cancelled.sum());
  }

  /** Stops serving and stops telemetry; the router is the caller's to close. */
  @Override
  public void close() {
    closeAsync().join();
  }

  /** Starts {@link #close()}: telemetry stops at once, the server when its threads have stopped. */
  public CompletableFuture<Void> closeAsync() {
    telemetry.close();
    return server.stop().thenRun(() -> {});
  }

  private HttpResponse serve(ServiceRequestContext ctx,
      com.linecorp.armeria.common.HttpRequest req, boolean chat) {
    HttpResponseWriter out = HttpResponse.streaming();
    req.aggregate().thenAccept(agg -> {
      OpenAiRequest parsed;
      try {
        parsed = OpenAiRequest.parse(JSON.readTree(agg.contentUtf8()), chat);
      } catch (IOException | IllegalArgumentException e) {
        Exchange.replyError(out, HttpStatus.BAD_REQUEST, e.getMessage(), null);
        return;
      }
      counters.requests.increment();
      new Exchange(this, ctx, parsed, "gw-" + ids.incrementAndGet(), out).start();
    });
    return out;
  }

  ReplicaTelemetry telemetry() {
    return telemetry;
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
    private ReplicaTelemetry telemetry;
    private InFlightAttempts attempts = new InFlightAttempts();
    private final Map<String, URI> replicas = new LinkedHashMap<>();
    private int port;
    private int maxAttempts = 3;
    private Duration upstreamTimeout = Duration.ofMinutes(5);

    private Builder() {}

    /** Required: the router deciding every request's replica. */
    public Builder router(Router router) {
      this.router = checkNotNull(router, "router: null (expected: non-null)");
      return this;
    }

    /** Required: what keeps the router informed about the replicas. */
    public Builder telemetry(ReplicaTelemetry telemetry) {
      this.telemetry = checkNotNull(telemetry, "telemetry: null (expected: non-null)");
      return this;
    }

    /**
     * Where the gateway records its attempts in flight; give the same instance to the router as its
     * listener, so that attempts the router orphans are retried. Default: a private one, which the
     * router never calls (attempts are then retried only on errors).
     */
    public Builder attempts(InFlightAttempts attempts) {
      this.attempts = checkNotNull(attempts, "attempts: null (expected: non-null)");
      return this;
    }

    /** Adds a replica the router may name, at base URI {@code uri}. At least one is required. */
    public Builder replica(String replicaId, URI uri) {
      checkNotNull(replicaId, "replicaId: null (expected: non-null)");
      checkNotNull(uri, "uri: null (expected: the replica's base URI)");
      checkArgument(replicas.putIfAbsent(replicaId, uri) == null,
          "replicaId: %s (expected: added once)", replicaId);
      return this;
    }

    /** The loopback port to listen on; 0 (the default) picks a free one. */
    public Builder port(int port) {
      checkArgument(port >= 0 && port <= 65_535, "port: %s (expected: 0 to 65535)", port);
      this.port = port;
      return this;
    }

    /** Attempts per request, the first included; default 3. */
    public Builder maxAttempts(int attempts) {
      checkArgument(attempts >= 1 && attempts <= 10, "maxAttempts: %s (expected: 1 to 10)", attempts);
      this.maxAttempts = attempts;
      return this;
    }

    /** How long one attempt may take end to end; default 5 minutes. */
    public Builder upstreamTimeout(Duration timeout) {
      checkArgument(timeout != null && !timeout.isNegative() && !timeout.isZero(),
          "upstreamTimeout: %s (expected: > 0)", timeout);
      this.upstreamTimeout = timeout;
      return this;
    }

    /** @throws IllegalStateException if the router, the telemetry or every replica is missing */
    public OpenAiGateway build() {
      checkState(router != null, "router: unset (expected: set before build)");
      checkState(telemetry != null, "telemetry: unset (expected: set before build)");
      checkState(!replicas.isEmpty(), "replicas: none (expected: at least one)");
      return new OpenAiGateway(this);
    }
  }
}
