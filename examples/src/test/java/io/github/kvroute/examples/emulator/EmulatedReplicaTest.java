package io.github.kvroute.examples.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EmulatedReplicaTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
  /** 40 blocks of 16 tokens x 4 characters, plus 10 characters: 643 tokens. */
  private static final String PROMPT = "abcdefghij".repeat(256) + "0123456789";

  private static EmulatedReplica replica;

  @BeforeAll
  static void start() {
    replica = EmulatedReplica.start("test-replica", "m", EngineModel.scaledDown());
  }

  @AfterAll
  static void stop() {
    replica.kill();
  }

  @Test
  void aRepeatedPromptIsServedFromThePrefixCacheExceptItsPartialLastBlock() throws Exception {
    String prompt = "first " + PROMPT;
    JsonNode first = post("/v1/completions",
        "{\"model\":\"m\",\"prompt\":" + JSON.writeValueAsString(prompt) + ",\"max_tokens\":3}");
    JsonNode again = post("/v1/completions",
        "{\"model\":\"m\",\"prompt\":" + JSON.writeValueAsString(prompt) + ",\"max_tokens\":3}");

    int promptTokens = (prompt.length() + 3) / 4; // 645
    assertThat(first.at("/usage/prompt_tokens").asInt()).isEqualTo(promptTokens);
    assertThat(first.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isZero();
    assertThat(first.at("/usage/completion_tokens").asInt()).isEqualTo(3);
    // 40 full blocks of 16 tokens cached, the 5 tokens of the partial block computed again
    assertThat(again.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isEqualTo(640);
    assertThat(again.at("/choices/0/text").asText()).isEqualTo(first.at("/choices/0/text").asText());
    assertThat(first.at("/object").asText()).isEqualTo("text_completion");
  }

  @Test
  void chatStreamsTokensThenAUsageChunkThenDone() throws Exception {
    HttpResponse<String> r = HTTP.send(request("/v1/chat/completions",
        "{\"model\":\"m\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
            + "\"max_completion_tokens\":4,\"messages\":[{\"role\":\"system\",\"content\":"
            + JSON.writeValueAsString(PROMPT) + "},{\"role\":\"user\",\"content\":\"hi\"}]}"),
        HttpResponse.BodyHandlers.ofString());

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
    List<String> events = List.of(r.body().split("\n\n"));
    // 4 tokens, the finish chunk, the usage chunk, [DONE]
    assertThat(events).hasSize(7);
    JsonNode firstToken = JSON.readTree(events.get(0).substring("data: ".length()));
    assertThat(firstToken.at("/object").asText()).isEqualTo("chat.completion.chunk");
    assertThat(firstToken.at("/choices/0/delta/role").asText()).isEqualTo("assistant");
    JsonNode finish = JSON.readTree(events.get(4).substring("data: ".length()));
    assertThat(finish.at("/choices/0/finish_reason").asText()).isEqualTo("length");
    JsonNode usage = JSON.readTree(events.get(5).substring("data: ".length()));
    assertThat(usage.at("/choices").size()).isZero();
    assertThat(usage.at("/usage/completion_tokens").asInt()).isEqualTo(4);
    assertThat(events.get(6)).isEqualTo("data: [DONE]");
  }

  @Test
  void metricsUseVllmNamesAndCountWhatWasServed() throws Exception {
    EmulatedReplica own = EmulatedReplica.start("metrics-replica", "m", EngineModel.scaledDown());
    try {
      String body = "{\"model\":\"m\",\"prompt\":" + JSON.writeValueAsString(PROMPT)
          + ",\"max_tokens\":2}";
      JsonNode a = postTo(own.uri(), "/v1/completions", body);
      JsonNode b = postTo(own.uri(), "/v1/completions", body);
      String metrics = HTTP.send(HttpRequest.newBuilder(own.uri().resolve("/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();

      int prompt = a.at("/usage/prompt_tokens").asInt();
      int cached = b.at("/usage/prompt_tokens_details/cached_tokens").asInt();
      assertThat(metrics)
          .contains("vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 0.0")
          .contains("vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 0.0")
          .contains("vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.0")
          .contains("vllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"} " + (2.0 * prompt))
          .contains("vllm:generation_tokens_total{engine=\"0\",model_name=\"m\"} 4.0")
          .contains("vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"m\"} " + (2.0 * prompt))
          .contains("vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"m\"} " + (double) cached)
          .contains("vllm:time_to_first_token_seconds_count{engine=\"0\",model_name=\"m\"} 2.0")
          .contains("block_size=\"16\"").contains("num_gpu_blocks=\"8192\"")
          .contains("process_start_time_seconds ");
      assertThat(cached).isEqualTo(640);
      assertThat(metrics.lines().filter(l -> l.matches(".*\\d[eE][+-]?\\d.*"))).isEmpty();
    } finally {
      own.kill();
    }
  }

  @Test
  void metricValuesAreWrittenAsPythonsPrometheusClientWritesThem() {
    assertThat(VllmMetricsText.number(3)).isEqualTo("3.0");
    assertThat(VllmMetricsText.number(0.125)).isEqualTo("0.125");
    assertThat(VllmMetricsText.number(4.08879E-4)).isEqualTo("0.000408879");
    assertThat(VllmMetricsText.number(1.796115152169E9)).isEqualTo("1796115152.169");
  }

  @Test
  void badRequestsAreAnsweredLikeVllm() throws Exception {
    assertThat(HTTP.send(request("/v1/completions", "{\"model\":\"other\",\"prompt\":\"x\"}"),
        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(404);
    HttpResponse<String> noPrompt = HTTP.send(request("/v1/completions", "{\"model\":\"m\"}"),
        HttpResponse.BodyHandlers.ofString());
    assertThat(noPrompt.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(noPrompt.body()).at("/error/message").asText()).startsWith("prompt: ");
    HttpResponse<String> tooLong = HTTP.send(request("/v1/completions",
        "{\"model\":\"m\",\"prompt\":\"x\",\"max_tokens\":200000}"), HttpResponse.BodyHandlers.ofString());
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(tooLong.body()).contains("exceeds the KV cache of 131072 tokens");
  }

  @Test
  void aKilledReplicaRefusesConnections() {
    EmulatedReplica doomed = EmulatedReplica.start("doomed", "m", EngineModel.scaledDown());
    URI uri = doomed.uri();
    doomed.kill();
    doomed.kill(); // idempotent
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> postTo(uri, "/v1/completions",
        "{\"model\":\"m\",\"prompt\":\"x\"}")).isInstanceOf(IOException.class);
  }

  private static JsonNode post(String path, String body) throws Exception {
    return postTo(replica.uri(), path, body);
  }

  private static JsonNode postTo(URI base, String path, String body) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(base.resolve(path))
        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static HttpRequest request(String path, String body) {
    return HttpRequest.newBuilder(replica.uri().resolve(path))
        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
  }
}
