package io.github.kvroute.examples.gateway;

import static io.github.kvroute.examples.gateway.RandomText.text;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.kvroute.api.CandidateExplanation;
import io.github.kvroute.api.DecisionExplanation;
import io.github.kvroute.core.ReplicaStatus;
import io.github.kvroute.core.Router;
import io.github.kvroute.examples.emulator.EmulatedFleet;
import io.github.kvroute.examples.emulator.EmulatedTokenizer;
import io.github.kvroute.examples.emulator.EngineModel;
import io.github.kvroute.examples.openai.OpenAiBody;
import io.github.kvroute.telemetry.vllm.KvStreamStatus;
import io.github.kvroute.telemetry.vllm.VllmKvEventSubscriber;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The gateway in exact mode: emulated replicas publish vLLM KV events, the gateway subscribes and keys
 * prompts with the engines' own block hashes, and the router matches a request against what the events
 * say each replica holds. Every wait is bounded; no assertion reads a clock.
 */
class GatewayExactModeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
  private static final String MODEL = "exact-model";
  private static final EngineModel ENGINE = EngineModel.scaledDown();
  private static final Duration BOUND = Duration.ofSeconds(60);
  /** A system prompt of 4,096 characters: 1,024 emulated tokens, 64 blocks. */
  private static final String SYSTEM = text(new Random(3), 4_096);

  @Test
  void aSecondRequestOnAPrefixIsRoutedWhereTheKvEventsSayItIsAndMatchesExactly() throws Exception {
    try (GatewayDemo demo = exactDemo()) {
      VllmKvEventSubscriber events = demo.gateway().kvEvents().orElseThrow();
      warmUp(demo, events);
      ObjectNode first = chat(SYSTEM, "First question: " + text(new Random(10), 300));
      ObjectNode second = chat(SYSTEM, "Second question: " + text(new Random(11), 300));
      int shared = sharedFullBlockTokens(first, second);

      JsonNode firstAnswer = post(demo.gateway().uri(), first);
      assertThat(cachedTokens(firstAnswer)).isZero();
      // the engine published the first prompt's blocks before answering; wait for the subscriber
      awaitTrue(() -> holders(demo, second).size() == 1);
      CandidateExplanation holder = holders(demo, second).get(0);
      // a scrape taken while the first request ran reports its replica busy until the next one; a
      // router reading it would rightly route around the holder, so wait for a scrape of it idle
      awaitTrue(() -> status(demo.router(), holder.replicaId()).estimatedQueueMillis() == 0);
      // the first request also shows in the holder's counters for a while (an arrival, a TTFT,
      // longer on a loaded machine), which hybrid-cost's load terms price: in a clean clone's full
      // build the first explain once chose an empty replica; wait for the decision to settle on
      // the holder, as the next test does
      awaitTrue(() -> demo.router().explain(demo.gateway().request(body(second), "x"))
          .decision().replicaId().equals(holder.replicaId()));
      DecisionExplanation explained = demo.router().explain(demo.gateway().request(body(second), "x"));

      System.out.printf("exact mode: %s holds %d of the second prompt's %d tokens%n",
          holder.replicaId(), holder.matchedTokens(), tokens(second).length);
      assertThat(shared).isGreaterThanOrEqualTo(1_024);
      assertThat(holder.matchedTokens()).as("every shared full block, as the engine hashed it")
          .isEqualTo(shared);
      assertThat(explained.decision().replicaId()).as("%s", explained)
          .isEqualTo(holder.replicaId());
      ReplicaStatus status = status(demo.router(), holder.replicaId());
      assertThat(status.exactIndex()).as("its index follows KV events").isTrue();
      assertThat(status.degradedIndex()).isFalse();

      JsonNode secondAnswer = post(demo.gateway().uri(), second);
      assertThat(cachedTokens(secondAnswer)).as("the engine served what the router predicted")
          .isEqualTo(shared);
      for (String id : events.statuses().keySet()) {
        KvStreamStatus s = events.status(id);
        assertThat(s.gaps()).as(id + " " + s).isZero();
        assertThat(s.malformedMessages()).as(id + " " + s).isZero();
      }
      assertThat(demo.router().stats().kvEventGaps()).isZero();
    }
  }

  /**
   * A prompt sent to a replica behind the gateway's back: the router never routed it, so only the
   * replica's KV events can tell it where the prefix is. In approximate mode nothing does.
   */
  @Test
  void onlyExactModeKnowsWhatAReplicaCachedForAnotherClient() throws Exception {
    ObjectNode direct = chat(SYSTEM, "Asked elsewhere: " + text(new Random(20), 300));
    ObjectNode viaGateway = chat(SYSTEM, "Asked here: " + text(new Random(21), 300));
    int shared = sharedFullBlockTokens(direct, viaGateway);
    try (GatewayDemo demo = exactDemo()) {
      warmUp(demo, demo.gateway().kvEvents().orElseThrow());
      post(demo.fleet().replica(3).uri(), direct);

      awaitTrue(() -> holders(demo, viaGateway).size() == 1);
      CandidateExplanation holder = holders(demo, viaGateway).get(0);
      assertThat(holder.replicaId()).isEqualTo(EmulatedFleet.name(3));
      assertThat(holder.matchedTokens()).isEqualTo(shared);
      // a scrape taken while the direct request ran reports replica 3 busy, and the router, which
      // never saw that request finish, would rightly route around it; wait for a scrape of it idle
      awaitTrue(() -> status(demo.router(), holder.replicaId()).estimatedQueueMillis() == 0);
      // the direct request also shows in the holder's counters for a while (an arrival, a TTFT,
      // longer on a loaded machine), which the router's load terms price: on a clean CI clone the
      // first explain chose replica-2 once; wait for the decision to settle on the holder, which
      // only the KV events can show holds the prefix (approximate mode, below, never learns it)
      awaitTrue(() -> demo.router().explain(demo.gateway().request(body(viaGateway), "x"))
          .decision().replicaId().equals(holder.replicaId()));
      assertThat(cachedTokens(post(demo.gateway().uri(), viaGateway))).isEqualTo(shared);
    }
    try (GatewayDemo demo = GatewayDemo.emulated(4, MODEL, ENGINE,
        Router.newBuilder().policy("hybrid-cost").seed(5), 0, Duration.ofMillis(100))) {
      assertThat(demo.gateway().kvEvents()).isEmpty();
      post(demo.fleet().replica(3).uri(), direct);

      assertThat(holders(demo, viaGateway)).as("approximate mode only knows what it routed").isEmpty();
    }
  }

  private static GatewayDemo exactDemo() {
    return GatewayDemo.around(EmulatedFleet.start(4, MODEL, ENGINE, true),
        Router.newBuilder().policy("hybrid-cost").seed(5), 0, Duration.ofMillis(100));
  }

  /**
   * A SUB socket receives nothing before it has joined (ZeroMQ's slow joiner), and replay recovers
   * what it missed only when a later batch arrives: send each replica distinct one-block prompts
   * directly until its stream has delivered a batch, so every subscription is live before the test.
   */
  private static void warmUp(GatewayDemo demo, VllmKvEventSubscriber events) throws Exception {
    for (int i = 0; i < demo.fleet().size(); i++) {
      String id = EmulatedFleet.name(i);
      for (int probe = 0; events.status(id).delivered() == 0; probe++) {
        assertThat(probe).as("a KV event from " + id + " within 100 probes").isLessThan(100);
        ObjectNode body = JSON.createObjectNode().put("model", MODEL).put("max_tokens", 1)
            .put("prompt", "probe " + probe + " ".repeat(64));
        post(demo.fleet().replica(i).uri(), body, "/v1/completions");
        Thread.sleep(10);
      }
    }
    // each replica's index turns exact with its first event
    awaitTrue(() -> demo.router().replicas().stream().allMatch(ReplicaStatus::exactIndex));
  }

  /** The replicas the router believes hold some of {@code chat}'s prompt. */
  private static List<CandidateExplanation> holders(GatewayDemo demo, ObjectNode chat) {
    return demo.router().explain(demo.gateway().request(body(chat), "probe")).candidates().stream()
        .filter(c -> c.matchedTokens() > 0).toList();
  }

  private static ReplicaStatus status(Router router, String id) {
    return router.replicas().stream().filter(s -> s.replicaId().equals(id)).findFirst().orElseThrow();
  }

  /** The tokens in the full blocks two chats' prompts share, by the engine's tokenizer. */
  private static int sharedFullBlockTokens(ObjectNode a, ObjectNode b) {
    int[] x = tokens(a);
    int[] y = tokens(b);
    int common = 0;
    while (common < Math.min(x.length, y.length) && x[common] == y[common]) {
      common++;
    }
    return common / ENGINE.blockSizeTokens() * ENGINE.blockSizeTokens();
  }

  private static int[] tokens(ObjectNode chat) {
    return EmulatedTokenizer.tokenIds(body(chat).prompt(), ENGINE.charsPerToken());
  }

  private static OpenAiBody body(ObjectNode chat) {
    return OpenAiBody.parse(chat, true);
  }

  private static ObjectNode chat(String system, String user) {
    ObjectNode body = JSON.createObjectNode().put("model", MODEL).put("max_tokens", 4);
    body.putArray("messages")
        .add(JSON.createObjectNode().put("role", "system").put("content", system))
        .add(JSON.createObjectNode().put("role", "user").put("content", user));
    return body;
  }

  private static JsonNode post(URI base, ObjectNode chat) throws Exception {
    return post(base, chat, "/v1/chat/completions");
  }

  private static JsonNode post(URI base, ObjectNode body, String path) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(base.resolve(path))
            .header("Content-Type", "application/json").timeout(BOUND)
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static long cachedTokens(JsonNode answer) {
    return answer.at("/usage/prompt_tokens_details/cached_tokens").asLong(-1);
  }

  private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + BOUND.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition met within " + BOUND).isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
