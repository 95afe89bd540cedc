package io.github.kvroute.examples.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.kvroute.core.Router;
import io.github.kvroute.examples.emulator.EngineModel;
import io.github.kvroute.telemetry.EngineMetrics;
import io.github.kvroute.telemetry.PrometheusPoller;
import io.github.kvroute.telemetry.ReplicaTarget;
import io.github.kvroute.telemetry.vllm.VllmBlockHasher;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The gateway's answers that are not a replica's: bad bodies, unknown models, replica 4xx. */
class OpenAiGatewayTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
  private static GatewayDemo demo;

  @BeforeAll
  static void start() {
    demo = GatewayDemo.emulated(2, "m", EngineModel.scaledDown(), Router.newBuilder(), 0);
  }

  @AfterAll
  static void stop() {
    demo.close();
  }

  @Test
  void aBodyThatIsNoOpenAiRequestIs400AndNeverRouted() throws Exception {
    long routed = demo.router().stats().routed();
    HttpResponse<String> notJson = post("/v1/chat/completions", "{not json");
    HttpResponse<String> noMessages = post("/v1/chat/completions", "{\"model\":\"m\"}");

    assertThat(notJson.statusCode()).isEqualTo(400);
    assertThat(noMessages.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(noMessages.body()).at("/error/message").asText())
        .isEqualTo("messages: null (expected: a non-empty array of messages)");
    assertThat(demo.router().stats().routed()).isEqualTo(routed);
  }

  @Test
  void aModelNoReplicaServesIs503FromTheRouter() throws Exception {
    HttpResponse<String> r = post("/v1/completions", "{\"model\":\"other\",\"prompt\":\"hi\"}");

    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(JSON.readTree(r.body()).at("/error/message").asText())
        .startsWith("rejected by the router (NO_CANDIDATES)");
  }

  @Test
  void aReplicasClientErrorIsPassedThroughWithoutRetry() throws Exception {
    long retries = demo.gateway().stats().retries();
    HttpResponse<String> r = post("/v1/completions",
        "{\"model\":\"m\",\"prompt\":\"hi\",\"max_tokens\":1000000}");

    assertThat(r.statusCode()).isEqualTo(400);
    JsonNode error = JSON.readTree(r.body()).get("error");
    assertThat(error.get("message").asText()).contains("exceeds the KV cache");
    assertThat(demo.gateway().stats().retries()).isEqualTo(retries);
  }

  @Test
  void aStreamForwardsTokensAndHidesTheUsageChunkTheClientDidNotAskFor() throws Exception {
    HttpResponse<String> r = post("/v1/chat/completions", "{\"model\":\"m\",\"stream\":true,"
        + "\"max_tokens\":3,\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
    // three tokens, the finish chunk, [DONE]; not the usage chunk the gateway asked for itself
    assertThat(java.util.List.of(r.body().split("\n\n"))).hasSize(5).last().isEqualTo("data: [DONE]");
    assertThat(r.body()).doesNotContain("\"usage\"");
  }

  @Test
  void clientsHangingUpMidStreamAreCancellationsNotReplicaFailures() throws Exception {
    try (GatewayDemo one = GatewayDemo.emulated(1, "m", EngineModel.scaledDown(),
        Router.newBuilder(), 0)) {
      // more hang-ups than the breaker's five consecutive failures
      for (int i = 0; i < 7; i++) {
        HttpRequest request = HttpRequest.newBuilder(one.gateway().uri().resolve("/v1/completions"))
            .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"stream\":true,"
                + "\"max_tokens\":100000,\"prompt\":\"tell me a long story " + i + "\"}"))
            .build();
        HttpResponse<java.io.InputStream> r =
            HTTP.send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (java.io.InputStream body = r.body()) {
          assertThat(r.statusCode()).isEqualTo(200);
          assertThat(body.read()).isEqualTo('d'); // "data: ...": the stream is under way
        }
        int hungUp = i + 1;
        awaitTrue(() -> one.gateway().stats().cancelled() == hungUp);
      }
      // every attempt was reported cancelled, so the replica's breaker stays closed
      awaitTrue(() -> one.router().stats().inFlight() == 0);
      HttpResponse<String> after = HTTP.send(HttpRequest.newBuilder(
              one.gateway().uri().resolve("/v1/completions"))
          .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
          .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"prompt\":\"hi\"}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(after.statusCode()).as(after.body()).isEqualTo(200);
      assertThat(one.gateway().stats().cancelled()).isEqualTo(7);
    }
  }

  @Test
  void aStreamWhoseReplicaDiesAfterItsFirstTokenEndsWithAnErrorEvent() throws Exception {
    try (GatewayDemo one = GatewayDemo.emulated(1, "m", EngineModel.scaledDown(),
        Router.newBuilder(), 0)) {
      HttpRequest request = HttpRequest.newBuilder(one.gateway().uri().resolve("/v1/completions"))
          .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
          .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"stream\":true,"
              + "\"max_tokens\":100000,\"prompt\":\"a story that never ends\"}"))
          .build();
      HttpResponse<java.util.stream.Stream<String>> r =
          HTTP.send(request, HttpResponse.BodyHandlers.ofLines());
      assertThat(r.statusCode()).isEqualTo(200);
      java.util.Iterator<String> lines = r.body().iterator();
      assertThat(lines.next()).startsWith("data: {"); // the first token reached the client

      one.fleet().replica(0).kill();
      String last = "";
      while (lines.hasNext()) {
        String line = lines.next();
        if (!line.isEmpty()) {
          last = line;
        }
      }

      // the tokens sent cannot be taken back: no retry, an error event, counted failed
      assertThat(last).startsWith("data: {\"error\":").contains("failed mid-stream");
      assertThat(one.gateway().stats().failed()).isEqualTo(1);
      assertThat(one.gateway().stats().retries()).isZero();
    }
  }

  @Test
  void builderRefusesAGatewayWithoutReplicasOrWithTelemetryOrKeysThatDoNotFit() {
    PrometheusPoller poller = PrometheusPoller.builder().replica(ReplicaTarget.of("r0", "m",
        URI.create("http://127.0.0.1:9"), EngineMetrics.VLLM)).build();
    assertThatThrownBy(() -> OpenAiGateway.newBuilder().router(demo.router()).telemetry(poller).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("replicas: none (expected: at least one)");
    assertThatThrownBy(() -> OpenAiGateway.newBuilder().router(demo.router()).telemetry(poller)
        .replica("r1", URI.create("http://127.0.0.1:9")).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("replica r1: not scraped by the poller (expected: one of [r0])");
    assertThatThrownBy(() -> OpenAiGateway.newBuilder().router(demo.router()).telemetry(poller)
        .replica("r0", URI.create("http://127.0.0.1:9")).promptKeyer(PromptKeyer.approximate(32))
        .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("promptKeyer: block size 32 (expected: the router's, 16)");
    assertThatThrownBy(() -> OpenAiGateway.newBuilder().maxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxAttempts: 0 (expected: 1 to 10)");
    poller.close();
  }

  @Test
  void aKeyerThatThrowsIsContainedAnd500() throws Exception {
    Router router = Router.newBuilder().build();
    PrometheusPoller poller = PrometheusPoller.builder().replica(ReplicaTarget.of("replica-0", "m",
        demo.fleet().replica(0).uri(), EngineMetrics.VLLM)).build();
    PromptKeyer broken = PromptKeyer.exact(text -> {
      throw new IllegalStateException("tokenizer down");
    }, VllmBlockHasher.sha256Cbor(16, "0"));
    try (OpenAiGateway gateway = OpenAiGateway.newBuilder().router(router).telemetry(poller)
        .replica("replica-0", demo.fleet().replica(0).uri()).promptKeyer(broken).build().start()) {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(
              gateway.uri().resolve("/v1/completions")).header("Content-Type", "application/json")
          .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(
              "{\"model\":\"m\",\"prompt\":\"hi\"}")).build(), HttpResponse.BodyHandlers.ofString());

      assertThat(r.statusCode()).isEqualTo(500);
      assertThat(JSON.readTree(r.body()).at("/error/message").asText())
          .isEqualTo("prompt keying failed: java.lang.IllegalStateException: tokenizer down");
      assertThat(gateway.stats().failed()).isEqualTo(1);
      assertThat(router.stats().routed()).isZero();
    } finally {
      router.close();
    }
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition met within 30 s").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    URI uri = demo.gateway().uri().resolve(path);
    return HTTP.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
