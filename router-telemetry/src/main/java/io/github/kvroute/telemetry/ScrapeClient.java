package io.github.kvroute.telemetry;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * How the poller fetches a replica's endpoints: one GET, bounded in time. The default is the JDK's
 * {@link HttpClient} ({@link #jdk()}); tests and hosts with their own HTTP stack supply another.
 *
 * <p>Thread-safety: implementations must accept concurrent calls (the poller scrapes replicas in
 * parallel).
 */
@FunctionalInterface
public interface ScrapeClient {
  /** The largest response body {@link #jdk()} reads: 16 MiB (a vLLM {@code /metrics} is ~100 KiB). */
  int DEFAULT_MAX_BODY_BYTES = 16 << 20;

  /**
   * GETs {@code uri} and returns its status and body, within {@code timeout}.
   *
   * @param uri the endpoint, e.g. {@code http://10.0.0.5:8000/metrics}
   * @param timeout the longest the whole exchange may take, body included
   * @return the status and body, whatever the status
   * @throws IOException if the request failed, timed out, or the body was too large
   * @throws InterruptedException if the calling thread was interrupted
   */
  Response get(URI uri, Duration timeout) throws IOException, InterruptedException;

  /**
   * A response: the HTTP status code and the body decoded as UTF-8. Immutable and thread-safe.
   *
   * @param status the HTTP status code
   * @param body the body, possibly empty, never null
   */
  record Response(int status, String body) {
    /**
     * Requires a body (an empty string when the response had none).
     *
     * @param status the HTTP status code
     * @param body the body, possibly empty, never null
     */
    public Response {
      if (body == null) {
        throw new NullPointerException("body: null (expected: a body, possibly empty)");
      }
    }

    /** {@return whether the status is 2xx} */
    public boolean isSuccess() {
      return status >= 200 && status < 300;
    }
  }

  /**
   * A client on a new JDK {@link HttpClient} (HTTP/1.1, connect timeout 2 s, no redirects), reading at
   * most {@value #DEFAULT_MAX_BODY_BYTES} bytes of a body.
   *
   * @return a client of its own, thread-safe
   */
  static ScrapeClient jdk() {
    return jdk(HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2))
        .followRedirects(HttpClient.Redirect.NEVER)
        .build(), DEFAULT_MAX_BODY_BYTES);
  }

  /**
   * A client on {@code client}, reading at most {@code maxBodyBytes} of a body. The timeout covers the
   * whole exchange, body included.
   *
   * @param client the host's JDK client (its proxy, TLS and connect-timeout settings apply)
   * @param maxBodyBytes the largest body read; a larger one fails the GET
   * @return a client on {@code client}
   * @throws IllegalArgumentException if {@code maxBodyBytes < 1}
   */
  static ScrapeClient jdk(HttpClient client, int maxBodyBytes) {
    return new JdkScrapeClient(client, maxBodyBytes);
  }
}
