package io.github.kvroute.examples.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.linecorp.armeria.client.ResponseTimeoutException;
import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpObject;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpResponseWriter;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.common.ResponseHeadersBuilder;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.examples.openai.OpenAiBody;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * One client request through the gateway: route, forward, report, retry (see {@link OpenAiGateway}).
 *
 * <p>Thread-safety: one attempt runs at a time, its callbacks on one event loop; a retry starts only
 * after the previous attempt ended. The client's cancellation may arrive on another thread: it is
 * seen through {@link #ended} and the volatile {@link #upstream}.
 */
final class Exchange {
  /** Most bytes of one server-sent event, or of a non-streamed body, held while forwarding. */
  static final int MAX_BUFFERED_BYTES = 8 << 20;

  private final OpenAiGateway gateway;
  private final ServiceRequestContext ctx;
  private final OpenAiBody body;
  private final HttpResponseWriter out;
  private final byte[] upstreamBody;
  private final AtomicBoolean ended = new AtomicBoolean();
  private volatile HttpResponse upstream;
  /** Set when the router orphaned the attempt in flight, before its upstream call is aborted. */
  private volatile boolean orphaned;
  /** The attempt in flight; orphaning an older one changes nothing. */
  private volatile RequestRef current;
  private Request request;

  Exchange(OpenAiGateway gateway, ServiceRequestContext ctx, OpenAiBody body, Request request,
      HttpResponseWriter out) {
    this.gateway = gateway;
    this.ctx = ctx;
    this.body = body;
    this.out = out;
    ObjectNode forwarded = body.json().deepCopy();
    if (body.stream()) {
      forwarded.putObject("stream_options").put("include_usage", true);
    }
    this.upstreamBody = json(forwarded).getBytes(StandardCharsets.UTF_8);
    this.request = request;
  }

  void start() {
    out.whenComplete().exceptionally(e -> {
      if (ended.compareAndSet(false, true)) {
        gateway.counters.cancelled.increment();
      }
      HttpResponse u = upstream;
      if (u != null) {
        u.abort();
      }
      return null;
    });
    attempt();
  }

  private void attempt() {
    if (ended.get()) {
      return;
    }
    RoutingDecision d = gateway.router().route(request);
    if (!d.isRouted()) {
      reject(d);
      return;
    }
    WebClient client = gateway.client(d.replicaId());
    if (client == null) {
      // the router named a replica this gateway has no address for: a configuration error
      report(d, OutcomeStatus.CONNECTION_FAILED, null, null);
      end(() -> replyError(out, HttpStatus.BAD_GATEWAY,
          "replica " + d.replicaId() + " has no address in this gateway", null), "failed");
      return;
    }
    RequestHeaders headers = RequestHeaders.builder(HttpMethod.POST,
            body.chat() ? "/v1/chat/completions" : "/v1/completions")
        .contentType(MediaType.JSON_UTF_8).build();
    // registered before the call, so an orphaning that comes at once is not missed
    RequestRef ref = new RequestRef(request.id(), request.attempt());
    orphaned = false;
    upstream = null;
    current = ref;
    gateway.attempts().add(ref, () -> {
      if (current != ref) {
        return; // a late call for an attempt that already ended
      }
      orphaned = true;
      HttpResponse u = upstream;
      if (u != null) {
        u.abort();
      }
    });
    HttpResponse response = client.execute(HttpRequest.of(headers, HttpData.wrap(upstreamBody)));
    upstream = response;
    if (orphaned) {
      response.abort();
    }
    response.subscribe(new Attempt(d, ref, System.nanoTime()), ctx.eventLoop());
  }

  private void reject(RoutingDecision d) {
    boolean none = d.reason() == RejectReason.NO_CANDIDATES;
    end(() -> replyError(out, none ? HttpStatus.SERVICE_UNAVAILABLE : HttpStatus.TOO_MANY_REQUESTS,
        "rejected by the router (" + d.reason() + "): " + d.detail(), d.retryAfter().orElse(null)),
        none ? "unavailable" : "rejected");
  }

  /** Reports the attempt and, if it may, routes the next one; else answers the client. */
  private void retryOrFail(RoutingDecision d, OutcomeStatus status, String why) {
    report(d, status, null, null);
    if (status == OutcomeStatus.CONNECTION_FAILED || status == OutcomeStatus.TIMEOUT) {
      gateway.refresh(d.replicaId()).whenComplete((v, e) -> retry(why));
    } else {
      retry(why);
    }
  }

  /** Routes the next attempt if one is left; else answers the client. */
  private void retry(String why) {
    if (request.attempt() >= gateway.maxAttempts() || ended.get()) {
      end(() -> replyError(out, HttpStatus.BAD_GATEWAY, "gave up after " + request.attempt()
          + " attempts; last: " + why, null), "failed");
      return;
    }
    request = request.nextAttempt();
    gateway.counters.retries.increment();
    attempt();
  }

  private void report(RoutingDecision d, OutcomeStatus status, JsonNode usage, Duration ttft) {
    Outcome.Builder o = Outcome.newBuilder().requestId(request.id()).attempt(request.attempt())
        .replicaId(d.replicaId()).epoch(d.epoch()).status(status);
    if (usage != null) {
      JsonNode cached = usage.path("prompt_tokens_details").path("cached_tokens");
      if (cached.canConvertToInt() && cached.asInt() >= 0) {
        o.cachedTokens(cached.asInt());
      }
      JsonNode completion = usage.path("completion_tokens");
      if (completion.canConvertToInt() && completion.asInt() >= 0) {
        o.outputTokens(completion.asInt());
      }
    }
    if (ttft != null) {
      o.ttft(ttft);
    }
    gateway.router().onOutcome(o.build());
  }

  /** Ends the exchange once: runs {@code reply} and counts the end as {@code kind}. */
  private void end(Runnable reply, String kind) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    switch (kind) {
      case "completed" -> gateway.counters.completed.increment();
      case "rejected" -> gateway.counters.rejected.increment();
      case "unavailable" -> gateway.counters.unavailable.increment();
      default -> gateway.counters.failed.increment();
    }
    reply.run();
  }

  static void replyError(HttpResponseWriter out, HttpStatus status, String message,
      Duration retryAfter) {
    ResponseHeadersBuilder h = ResponseHeaders.builder(status).contentType(MediaType.JSON_UTF_8);
    if (retryAfter != null) {
      long millis = Math.max(0, retryAfter.toMillis());
      h.add(HttpHeaderNames.RETRY_AFTER, Long.toString(Math.max(1, (millis + 999) / 1000)));
      h.add("retry-after-ms", Long.toString(millis));
    }
    ObjectNode err = OpenAiGateway.JSON.createObjectNode();
    err.putObject("error").put("message", message)
        .put("type", status.code() == 429 ? "rate_limit_exceeded" : "server_error")
        .put("code", Integer.toString(status.code()));
    out.tryWrite(h.build());
    out.tryWrite(HttpData.ofUtf8(json(err)));
    out.close();
  }

  static String json(JsonNode node) {
    try {
      return OpenAiGateway.JSON.writeValueAsString(node);
    } catch (IOException e) {
      throw new IllegalStateException("JSON: " + e.getMessage(), e);
    }
  }

  /**
   * One attempt's upstream response. A non-streamed body is collected (bounded) and forwarded whole;
   * a stream is forwarded event by event from its first token on.
   */
  private final class Attempt implements Subscriber<HttpObject> {
    private final RoutingDecision decision;
    private final RequestRef ref;
    private final long sentNanos;
    private final StringBuilder buffer = new StringBuilder();
    private Subscription subscription;
    private ResponseHeaders headers;
    private boolean committed;
    private Duration ttft;
    private JsonNode usage;
    private boolean done;

    Attempt(RoutingDecision decision, RequestRef ref, long sentNanos) {
      this.decision = decision;
      this.ref = ref;
      this.sentNanos = sentNanos;
    }

    @Override
    public void onSubscribe(Subscription s) {
      subscription = s;
      s.request(1);
    }

    /**
     * One piece of the upstream response. The next is requested only once the client has consumed
     * what this one forwarded, so a slow client holds the replica's stream back instead of filling
     * the gateway's memory: at most one upstream chunk and one event wait per stream.
     */
    @Override
    public void onNext(HttpObject o) {
      if (done) {
        return;
      }
      if (o instanceof ResponseHeaders h) {
        if (!h.status().isInformational()) {
          headers = h;
        }
        subscription.request(1);
        return;
      }
      if (!(o instanceof HttpData data) || headers == null) {
        subscription.request(1);
        return; // trailers
      }
      buffer.append(data.toStringUtf8());
      if (buffer.length() > MAX_BUFFERED_BYTES) {
        fail(OutcomeStatus.REPLICA_ERROR, "response over " + MAX_BUFFERED_BYTES + " bytes");
        return;
      }
      if (body.stream() && headers.status().isSuccess() && forwardEvents()) {
        out.whenConsumed().thenRun(() -> subscription.request(1));
      } else {
        subscription.request(1);
      }
    }

    @Override
    public void onError(Throwable t) {
      if (done) {
        return;
      }
      if (ended.get()) {
        // the client went away and the gateway aborted the attempt: not the replica's fault
        finish();
        report(decision, OutcomeStatus.CANCELLED, null, ttft);
        return;
      }
      if (orphaned && !committed) {
        // the router already closed this attempt and told us to retry it
        finish();
        retry("replica " + decision.replicaId() + " stopped");
        return;
      }
      OutcomeStatus status = t instanceof ResponseTimeoutException
          ? OutcomeStatus.TIMEOUT : OutcomeStatus.CONNECTION_FAILED;
      fail(status, t.getClass().getSimpleName() + ": " + t.getMessage());
    }

    @Override
    public void onComplete() {
      if (done) {
        return;
      }
      finish();
      HttpStatus status = headers == null ? HttpStatus.BAD_GATEWAY : headers.status();
      if (!status.isSuccess()) {
        if (status.code() == 429 || status.code() == 503) {
          retryOrFail(decision, OutcomeStatus.REJECTED_BY_REPLICA, "replica answered " + status);
        } else if (status.isServerError() || headers == null) {
          retryOrFail(decision, OutcomeStatus.REPLICA_ERROR, "replica answered " + status);
        } else {
          report(decision, OutcomeStatus.CLIENT_ERROR, null, null);
          String text = buffer.toString();
          end(() -> {
            out.tryWrite(ResponseHeaders.builder(status).contentType(MediaType.JSON_UTF_8).build());
            out.tryWrite(HttpData.ofUtf8(text));
            out.close();
          }, "completed");
        }
        return;
      }
      if (body.stream()) {
        forwardEvents();
        report(decision, OutcomeStatus.SUCCESS, usage, ttft);
        end(() -> {
          commit();
          out.close();
        }, "completed");
        return;
      }
      String text = buffer.toString();
      try {
        usage = OpenAiGateway.JSON.readTree(text).get("usage");
      } catch (IOException e) {
        usage = null;
      }
      report(decision, OutcomeStatus.SUCCESS, usage, null);
      end(() -> {
        out.tryWrite(ResponseHeaders.builder(HttpStatus.OK).contentType(MediaType.JSON_UTF_8).build());
        out.tryWrite(HttpData.ofUtf8(text));
        out.close();
      }, "completed");
    }

    /** This attempt has ended: the router can no longer orphan it through the gateway. */
    private void finish() {
      done = true;
      gateway.attempts().remove(ref);
    }

    private void fail(OutcomeStatus status, String why) {
      finish();
      if (subscription != null) {
        subscription.cancel();
      }
      if (!committed) {
        retryOrFail(decision, status, why);
        return;
      }
      report(decision, status, null, ttft);
      ObjectNode err = OpenAiGateway.JSON.createObjectNode();
      err.putObject("error").put("message", "replica " + decision.replicaId() + " failed mid-stream: "
          + why).put("type", "server_error").put("code", "502");
      end(() -> {
        out.tryWrite(HttpData.ofUtf8("data: " + json(err) + "\n\n"));
        out.close();
      }, "failed");
    }

    /**
     * Forwards every complete event in the buffer; the first token commits the stream.
     *
     * @return whether anything was written to the client
     */
    private boolean forwardEvents() {
      boolean wrote = false;
      int end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        String event = buffer.substring(0, end + 2);
        buffer.delete(0, end + 2);
        String data = dataOf(event);
        if (data == null || data.equals("[DONE]")) {
          commit();
          out.tryWrite(HttpData.ofUtf8(event));
          wrote = true;
          continue;
        }
        JsonNode chunk;
        try {
          chunk = OpenAiGateway.JSON.readTree(data);
        } catch (IOException e) {
          chunk = null;
        }
        boolean usageOnly = false;
        if (chunk != null) {
          JsonNode u = chunk.get("usage");
          if (u != null && !u.isNull()) {
            usage = u;
          }
          usageOnly = chunk.path("choices").isEmpty() && usage != null;
        }
        if (!committed && !usageOnly) {
          ttft = Duration.ofNanos(System.nanoTime() - sentNanos);
          gateway.router().onFirstToken(request.id(), request.attempt(), decision.replicaId(),
              decision.epoch());
        }
        if (usageOnly && !body.includeUsage()) {
          continue;
        }
        commit();
        out.tryWrite(HttpData.ofUtf8(event));
        wrote = true;
      }
      return wrote;
    }

    private void commit() {
      if (!committed) {
        committed = true;
        out.tryWrite(ResponseHeaders.builder(HttpStatus.OK)
            .contentType(MediaType.EVENT_STREAM).build());
      }
    }

    private String dataOf(String event) {
      StringBuilder data = null;
      for (String line : event.split("\n")) {
        if (line.startsWith("data:")) {
          if (data == null) {
            data = new StringBuilder();
          } else {
            data.append('\n');
          }
          data.append(line.substring(5).strip());
        }
      }
      return data == null ? null : data.toString();
    }
  }
}
