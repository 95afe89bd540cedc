package io.github.kvroute.telemetry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link ScrapeClient} on the JDK's {@link HttpClient}. The body is collected by a subscriber that
 * cancels the exchange past {@code maxBodyBytes}, and the whole exchange waits at most the timeout.
 * Thread-safe (the JDK client is).
 */
final class JdkScrapeClient implements ScrapeClient {
  private final HttpClient client;
  private final int maxBodyBytes;

  JdkScrapeClient(HttpClient client, int maxBodyBytes) {
    this.client = Objects.requireNonNull(client, "client");
    if (maxBodyBytes < 1) {
      throw new IllegalArgumentException("maxBodyBytes: " + maxBodyBytes + " (expected: >= 1)");
    }
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  public Response get(URI uri, Duration timeout) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).GET().build();
    CompletableFuture<HttpResponse<String>> future =
        client.sendAsync(request, info -> new CappedBody(maxBodyBytes));
    try {
      HttpResponse<String> response = future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      return new Response(response.statusCode(), response.body());
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new HttpTimeoutException("GET " + uri + ": no complete response within " + timeout);
    } catch (CancellationException e) {
      throw new IOException("GET " + uri + ": cancelled", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException("GET " + uri + ": " + cause, cause);
    } catch (InterruptedException e) {
      future.cancel(true);
      throw e;
    }
  }

  /** Collects a body of at most {@code max} bytes, failing the exchange past it. */
  private static final class CappedBody implements HttpResponse.BodySubscriber<String> {
    private final int max;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CompletableFuture<String> result = new CompletableFuture<>();
    private Flow.Subscription subscription;

    CappedBody(int max) {
      this.max = max;
    }

    @Override
    public CompletionStage<String> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      for (ByteBuffer b : items) {
        if (bytes.size() + b.remaining() > max) {
          subscription.cancel();
          result.completeExceptionally(
              new IOException("body over " + max + " bytes (expected: at most maxBodyBytes)"));
          return;
        }
        byte[] chunk = new byte[b.remaining()];
        b.get(chunk);
        bytes.write(chunk, 0, chunk.length);
      }
    }

    @Override
    public void onError(Throwable t) {
      result.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
      result.complete(bytes.toString(StandardCharsets.UTF_8));
    }
  }
}
