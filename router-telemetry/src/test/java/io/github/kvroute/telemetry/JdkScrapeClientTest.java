package io.github.kvroute.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The JDK client against a loopback HTTP server. */
class JdkScrapeClientTest {
  private HttpServer server;
  private URI base;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/metrics", exchange -> respond(exchange, 200, "vllm:num_requests_waiting 2.0\n"));
    server.createContext("/big", exchange -> respond(exchange, 200, "x".repeat(5000)));
    server.createContext("/down", exchange -> respond(exchange, 503, ""));
    server.start();
    base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static void respond(com.sun.net.httpserver.HttpExchange exchange, int status, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Test
  void readsStatusAndBody() throws Exception {
    ScrapeClient c = ScrapeClient.jdk();
    ScrapeClient.Response r = c.get(base.resolve("/metrics"), Duration.ofSeconds(10));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("vllm:num_requests_waiting 2.0\n");
    ScrapeClient.Response down = c.get(base.resolve("/down"), Duration.ofSeconds(10));
    assertThat(down.isSuccess()).isFalse();
    assertThat(down.body()).isEmpty();
  }

  @Test
  void aBodyOverTheCapFails() {
    ScrapeClient c = ScrapeClient.jdk(HttpClient.newHttpClient(), 1000);
    assertThatThrownBy(() -> c.get(base.resolve("/big"), Duration.ofSeconds(10)))
        .isInstanceOf(IOException.class).hasMessageContaining("body over 1000 bytes");
  }

  @Test
  void aRefusedConnectionIsAnIoException() throws IOException {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    ScrapeClient c = ScrapeClient.jdk();
    assertThatThrownBy(() -> c.get(URI.create("http://127.0.0.1:" + port + "/metrics"), Duration.ofSeconds(10)))
        .isInstanceOf(IOException.class);
  }
}
