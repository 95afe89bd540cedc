package io.github.kvroute.examples.emulator;

import static com.google.common.base.Preconditions.checkNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpResponseWriter;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.server.Server;
import io.github.kvroute.examples.openai.OpenAiBody;
import io.github.kvroute.telemetry.vllm.VllmKvEventPublisher;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.zeromq.ZContext;

/**
 * One emulated vLLM replica on loopback: an {@link EmulatedEngine} behind vLLM's HTTP surface.
 *
 * <ul>
 *   <li>{@code POST /v1/completions} and {@code POST /v1/chat/completions}, OpenAI-compatible, streamed
 *       as server-sent events when {@code stream} is true (ending with {@code data: [DONE]}, with a
 *       usage chunk when {@code stream_options.include_usage} is set), else one JSON body; {@code usage}
 *       carries {@code prompt_tokens_details.cached_tokens}, the prompt tokens the prefix cache served;
 *   <li>{@code GET /health}: 200 while serving;
 *   <li>{@code GET /metrics}: Prometheus text with vLLM's metric names ({@link VllmMetricsText});
 *   <li>{@code GET /v1/models}: the served model;
 *   <li>optionally, vLLM's KV-event stream (a {@link VllmKvEventPublisher}): every prompt block the
 *       engine caches and every block it evicts, one batch per engine step, on a ZeroMQ PUB socket
 *       ({@link #kvEventsEndpoint()}) with vLLM's replay socket beside it
 *       ({@link #kvEventsReplayEndpoint()}). Block hashes are vLLM's {@code sha256_cbor} ones
 *       ({@link EmulatedTokenizer}), so a gateway can key its requests to match them.
 * </ul>
 *
 * <p>{@link #kill()} stops it abruptly, as a crashed process: open connections are reset, so
 * requests in flight fail at their clients.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class EmulatedReplica implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicLong IDS = new AtomicLong();

  private final String model;
  private final EngineModel engineModel;
  private final VllmKvEventPublisher kvEvents;
  private final EmulatedEngine engine;
  private final Server server;
  private final double startTimeSeconds;
  /** While set, every HTTP request is left unanswered (see {@link #partition()}). */
  private volatile boolean partitioned;

  /** @param kvEvents where to publish KV events from, or null for none */
  private EmulatedReplica(String name, String model, EngineModel engineModel, int port,
      VllmKvEventPublisher.Builder kvEvents) {
    this.model = checkNotNull(model, "model: null (expected: a model name)");
    this.engineModel = checkNotNull(engineModel, "engineModel: null (expected: an EngineModel)");
    this.startTimeSeconds = System.currentTimeMillis() / 1000.0;
    this.kvEvents = kvEvents == null ? null : kvEvents.build();
    this.engine = new EmulatedEngine(engineModel, name, this.kvEvents);
    this.server = Server.builder()
        .http(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
        .requestTimeout(Duration.ZERO) // streams last as long as generation does
        .gracefulShutdownTimeout(Duration.ZERO, Duration.ZERO)
        .decorator((delegate, ctx, req) -> partitioned
            ? HttpResponse.of(new CompletableFuture<HttpResponse>()) : delegate.serve(ctx, req))
        .service("/v1/completions", (ctx, req) -> HttpResponse.of(
            req.aggregate().thenApply(agg -> complete(agg, false))))
        .service("/v1/chat/completions", (ctx, req) -> HttpResponse.of(
            req.aggregate().thenApply(agg -> complete(agg, true))))
        .service("/health", (ctx, req) -> HttpResponse.of(HttpStatus.OK))
        .service("/metrics", (ctx, req) -> HttpResponse.of(HttpStatus.OK,
            MediaType.parse("text/plain; version=0.0.4; charset=utf-8"),
            VllmMetricsText.render(model, engineModel, engine.read(), startTimeSeconds)))
        .service("/v1/models", (ctx, req) -> HttpResponse.ofJson(
            JSON.createObjectNode().put("object", "list").set("data", JSON.createArrayNode()
                .add(JSON.createObjectNode().put("id", model).put("object", "model")))))
        .build();
  }

  /**
   * Starts a replica serving {@code model} on an ephemeral loopback port.
   *
   * @param name the replica's name, which names its threads
   * @param model the model it serves; requests for another get 404
   * @param engineModel how its engine spends time and memory
   * @return the running replica
   */
  public static EmulatedReplica start(String name, String model, EngineModel engineModel) {
    return start(name, model, engineModel, 0);
  }

  /**
   * Starts a replica on loopback {@code port} (0 for an ephemeral one), publishing vLLM KV events on
   * a loopback ZeroMQ endpoint of its own when {@code kvEvents} ({@link #kvEventsEndpoint()}).
   *
   * @param name the replica's name, which names its threads
   * @param model the model it serves; requests for another get 404
   * @param engineModel how its engine spends time and memory
   * @param port the loopback port, or 0 for an ephemeral one
   * @param kvEvents whether it publishes vLLM KV events (with a replay socket)
   * @return the running replica
   */
  public static EmulatedReplica start(String name, String model, EngineModel engineModel, int port,
      boolean kvEvents) {
    return startWith(name, model, engineModel, port, kvEvents ? kvEventsPublisher() : null);
  }

  /**
   * As {@link #start(String, String, EngineModel, int, boolean)}, publishing KV events in
   * {@code context} (one ZeroMQ context for a whole fleet in one process).
   */
  static EmulatedReplica start(String name, String model, EngineModel engineModel, int port,
      ZContext context) {
    return startWith(name, model, engineModel, port, kvEventsPublisher().context(context));
  }

  /** A publisher on loopback, on free ports, with a replay socket. */
  private static VllmKvEventPublisher.Builder kvEventsPublisher() {
    return VllmKvEventPublisher.builder().endpoint("tcp://127.0.0.1:*")
        .replayEndpoint("tcp://127.0.0.1:*");
  }

  private static EmulatedReplica startWith(String name, String model, EngineModel engineModel,
      int port, VllmKvEventPublisher.Builder kvEvents) {
    EmulatedReplica r = new EmulatedReplica(name, model, engineModel, port, kvEvents);
    try {
      r.server.start().join();
    } catch (RuntimeException e) {
      r.engine.close();
      if (r.kvEvents != null) {
        r.kvEvents.close();
      }
      throw e;
    }
    return r;
  }

  /**
   * Starts a replica on loopback {@code port} (0 for an ephemeral one), without KV events.
   *
   * @param name the replica's name, which names its threads
   * @param model the model it serves; requests for another get 404
   * @param engineModel how its engine spends time and memory
   * @param port the loopback port, or 0 for an ephemeral one
   * @return the running replica
   */
  public static EmulatedReplica start(String name, String model, EngineModel engineModel, int port) {
    return start(name, model, engineModel, port, false);
  }

  /**
   * The ZeroMQ endpoint of the replica's KV-event stream ({@code tcp://127.0.0.1:PORT}, vLLM's wire
   * format), when it was started with KV events.
   *
   * @return the PUB endpoint; empty without KV events
   */
  public Optional<String> kvEventsEndpoint() {
    return kvEvents == null ? Optional.empty() : Optional.of(kvEvents.endpoint());
  }

  /**
   * The ZeroMQ endpoint of the replica's KV-event replay socket ({@code tcp://127.0.0.1:PORT}, vLLM's
   * {@code replay_endpoint}), when it was started with KV events.
   *
   * @return the ROUTER endpoint; empty without KV events
   */
  public Optional<String> kvEventsReplayEndpoint() {
    return kvEvents == null ? Optional.empty() : Optional.of(kvEvents.replayEndpoint());
  }

  /** {@return the replica's base URI, {@code http://127.0.0.1:PORT}} */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.activeLocalPort());
  }

  /** {@return the model the replica serves} */
  public String model() {
    return model;
  }

  /** {@return how the replica's engine spends time and memory, and how it tokenizes} */
  public EngineModel engineModel() {
    return engineModel;
  }

  /** {@return the requests in the engine now, running or waiting} */
  public int inFlightRequests() {
    EmulatedEngine.MetricsReading r = engine.read();
    return r.running() + r.waiting();
  }

  /** Stalls the engine (a hung GPU): requests are accepted and queue, none progresses. */
  public void pause() {
    engine.pause();
  }

  /**
   * Cuts the replica off without closing anything (a network partition, a wedged process): the
   * engine stalls and every HTTP request, {@code /metrics} included, is accepted and never answered.
   * Only a client's timeout, or the router orphaning the attempt, ends what it sent here.
   */
  public void partition() {
    engine.pause();
    partitioned = true;
  }

  /** Ends a {@link #pause()}. */
  public void resume() {
    engine.resume();
  }

  /** Stops abruptly: connections are reset and requests in flight are lost. Idempotent. */
  public void kill() {
    killAsync().join();
  }

  /**
   * Starts a {@link #kill()}: connections are closed at once; the future completes when the server's
   * threads have stopped (a couple of seconds of event-loop quiet period), so a fleet stops its
   * replicas in parallel.
   *
   * @return a future that completes when the server's threads, the engine and the publisher stopped
   */
  public CompletableFuture<Void> killAsync() {
    // connections first, so clients see resets rather than error replies
    return server.stop().thenRun(() -> {
      engine.close();
      if (kvEvents != null) {
        kvEvents.close();
      }
    });
  }

  @Override
  public void close() {
    kill();
  }

  private HttpResponse complete(AggregatedHttpRequest req, boolean chat) {
    OpenAiBody body;
    try {
      body = OpenAiBody.parse(JSON.readTree(req.contentUtf8()), chat);
    } catch (IOException | IllegalArgumentException e) {
      return error(HttpStatus.BAD_REQUEST, e.getMessage());
    }
    if (!body.model().equals(model)) {
      return error(HttpStatus.NOT_FOUND,
          "model: " + body.model() + " (expected: " + model + ", the model this replica serves)");
    }
    String id = (chat ? "chatcmpl-" : "cmpl-") + IDS.incrementAndGet();
    long created = System.currentTimeMillis() / 1000;
    if (body.stream()) {
      HttpResponseWriter out = HttpResponse.streaming();
      StreamingSink sink = new StreamingSink(out, chat, id, created, body.includeUsage());
      // headers first: the engine thread may write the first token as soon as it is submitted
      out.write(ResponseHeaders.builder(HttpStatus.OK).contentType(MediaType.EVENT_STREAM).build());
      String refused = engine.submit(body.prompt(), body.maxTokens(), sink);
      if (refused != null) {
        out.abort();
        return refusal(refused);
      }
      out.whenComplete().exceptionally(e -> {
        engine.cancel(sink);
        return null;
      });
      return out;
    }
    CompletableFuture<HttpResponse> done = new CompletableFuture<>();
    AggregatingSink sink = new AggregatingSink(done, chat, id, created);
    String refused = engine.submit(body.prompt(), body.maxTokens(), sink);
    if (refused != null) {
      return refusal(refused);
    }
    return HttpResponse.of(done);
  }

  private HttpResponse refusal(String why) {
    return why.startsWith("prompt of") ? error(HttpStatus.BAD_REQUEST, why)
        : error(HttpStatus.SERVICE_UNAVAILABLE, why);
  }

  static HttpResponse error(HttpStatus status, String message) {
    ObjectNode err = JSON.createObjectNode();
    err.putObject("error").put("message", message).put("type", "invalid_request_error")
        .put("code", Integer.toString(status.code()));
    return HttpResponse.ofJson(status, err);
  }

  private ObjectNode envelope(boolean chat, boolean chunk, String id, long created) {
    return JSON.createObjectNode().put("id", id)
        .put("object", chat ? (chunk ? "chat.completion.chunk" : "chat.completion") : "text_completion")
        .put("created", created).put("model", model);
  }

  private static ObjectNode usage(TokenSink.Usage u) {
    ObjectNode usage = JSON.createObjectNode()
        .put("prompt_tokens", u.promptTokens())
        .put("completion_tokens", u.completionTokens())
        .put("total_tokens", u.promptTokens() + u.completionTokens());
    usage.putObject("prompt_tokens_details").put("cached_tokens", u.cachedTokens());
    return usage;
  }

  private static String json(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (IOException e) {
      throw new IllegalStateException("JSON: " + e.getMessage(), e);
    }
  }

  /** Writes tokens as server-sent events. Thread-safety: called on the engine thread only. */
  private final class StreamingSink implements TokenSink {
    private final HttpResponseWriter out;
    private final boolean chat;
    private final String id;
    private final long created;
    private final boolean includeUsage;

    StreamingSink(HttpResponseWriter out, boolean chat, String id, long created,
        boolean includeUsage) {
      this.out = out;
      this.chat = chat;
      this.id = id;
      this.created = created;
      this.includeUsage = includeUsage;
    }

    @Override
    public void token(int index, String text) {
      ObjectNode choice = JSON.createObjectNode().put("index", 0);
      if (chat) {
        ObjectNode delta = choice.putObject("delta");
        if (index == 0) {
          delta.put("role", "assistant");
        }
        delta.put("content", text);
      } else {
        choice.put("text", text);
      }
      choice.putNull("logprobs").putNull("finish_reason");
      send(chunk(choice));
    }

    @Override
    public void finished(Usage u) {
      ObjectNode choice = JSON.createObjectNode().put("index", 0);
      if (chat) {
        choice.putObject("delta");
      } else {
        choice.put("text", "");
      }
      choice.putNull("logprobs").put("finish_reason", "length");
      send(chunk(choice));
      if (includeUsage) {
        ObjectNode last = envelope(chat, true, id, created);
        last.putArray("choices");
        last.set("usage", usage(u));
        send(last);
      }
      out.tryWrite(HttpData.ofUtf8("data: [DONE]\n\n"));
      out.close();
    }

    @Override
    public void aborted(String reason) {
      out.abort(new IllegalStateException(reason));
    }

    private ObjectNode chunk(ObjectNode choice) {
      ObjectNode chunk = envelope(chat, true, id, created);
      chunk.putArray("choices").add(choice);
      return chunk;
    }

    private void send(ObjectNode event) {
      out.tryWrite(HttpData.ofUtf8("data: " + json(event) + "\n\n"));
    }
  }

  /** Collects tokens into one response. Thread-safety: called on the engine thread only. */
  private final class AggregatingSink implements TokenSink {
    private final CompletableFuture<HttpResponse> done;
    private final boolean chat;
    private final String id;
    private final long created;
    private final StringBuilder text = new StringBuilder();

    AggregatingSink(CompletableFuture<HttpResponse> done, boolean chat, String id, long created) {
      this.done = done;
      this.chat = chat;
      this.id = id;
      this.created = created;
    }

    @Override
    public void token(int index, String token) {
      text.append(token);
    }

    @Override
    public void finished(Usage u) {
      ObjectNode body = envelope(chat, false, id, created);
      ArrayNode choices = body.putArray("choices");
      ObjectNode choice = choices.addObject().put("index", 0);
      if (chat) {
        choice.putObject("message").put("role", "assistant").put("content", text.toString());
      } else {
        choice.put("text", text.toString());
      }
      choice.putNull("logprobs").put("finish_reason", "length");
      body.set("usage", usage(u));
      done.complete(HttpResponse.ofJson(body));
    }

    @Override
    public void aborted(String reason) {
      done.completeExceptionally(new IllegalStateException(reason));
    }
  }
}
