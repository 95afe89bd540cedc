package io.github.kvroute.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.Router;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * README's "Embedding in your gateway" example, compiled and run here; the README's copy must match
 * this file's, character for character. Also what README's "Logging" promises with slf4j-simple.
 */
class EmbeddingExampleTest {
  private static final Path README = Path.of("..", "README.md");
  private static final Path THIS_FILE =
      Path.of("src/test/java/io/github/kvroute/examples/EmbeddingExampleTest.java");
  private static final String START = "// README: Embedding in your gateway (start)";
  private static final String END = "// README: Embedding in your gateway (end)";

  /** The gateway's side of the example: its HTTP client and its error responses. */
  interface Gateway {
    /** Sends the request to the replica and returns its time to first token. */
    Duration forward(Request request, String replicaId);

    /** Answers 429 or 503, with {@code Retry-After} when the router gives one. */
    void reject(Request request, RejectReason reason, Optional<Duration> retryAfter);
  }

  // README: Embedding in your gateway (start)
  static void serve(Gateway gateway) {
    try (Router router = Router.newBuilder().policy("hybrid-cost").build()) {
      // telemetry: each replica's /metrics scrape, whenever one arrives (docs/telemetry.md)
      for (String replica : List.of("vllm-0", "vllm-1", "vllm-2")) {
        router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId(replica).epoch(1)
            .model("llama-3-8b").waitingRequests(0).runningRequests(0).build());
      }
      // the request path: 20 chats sharing a long system prompt
      CacheNamespace namespace = CacheNamespace.of("llama-3-8b");
      String systemPrompt = "You are a careful assistant for ACME's billing desk. ".repeat(40);
      for (int i = 0; i < 20; i++) {
        Request request = Request.newBuilder().id("req-" + i).model("llama-3-8b")
            .prompt(PromptKey.ofText(systemPrompt + "Question " + i, namespace))
            .ttftBudget(Duration.ofSeconds(2)).build();
        RoutingDecision decision = router.route(request);
        if (!decision.isRouted()) {
          gateway.reject(request, decision.reason(), decision.retryAfter());
          continue;
        }
        Duration ttft = gateway.forward(request, decision.replicaId()); // your HTTP client
        router.onOutcome(Outcome.newBuilder().requestId(request.id())
            .replicaId(decision.replicaId()).epoch(decision.epoch())
            .status(OutcomeStatus.SUCCESS).ttft(ttft).build());
      }
    }
  }
  // README: Embedding in your gateway (end)

  @Test
  void theExampleRoutesAllTwentyRequests_andKeepsTheSharedPrefixTogether() {
    Map<String, Integer> forwarded = new TreeMap<>();
    List<RejectReason> rejected = new ArrayList<>();

    serve(new Gateway() {
      @Override
      public Duration forward(Request request, String replicaId) {
        forwarded.merge(replicaId, 1, Integer::sum);
        return Duration.ofMillis(80);
      }

      @Override
      public void reject(Request request, RejectReason reason, Optional<Duration> retryAfter) {
        rejected.add(reason);
      }
    });

    assertThat(rejected).isEmpty();
    assertThat(forwarded.keySet()).isSubsetOf("vllm-0", "vllm-1", "vllm-2");
    assertThat(forwarded.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(20);
    // an idle fleet and a 500-token shared prefix: hybrid-cost sends the followers where it is
    assertThat(forwarded.values().stream().mapToInt(Integer::intValue).max().orElse(0))
        .as("requests on the busiest replica, of 20: %s", forwarded).isGreaterThanOrEqualTo(15);
  }

  @Test
  void readmeShowsExactlyTheCodeThisTestRuns() throws IOException {
    List<String> source = Files.readAllLines(THIS_FILE);
    List<String> example = source.subList(source.indexOf("  " + START) + 1,
        source.indexOf("  " + END)).stream().map(l -> l.isEmpty() ? l : l.substring(2)).toList();
    List<String> readme = Files.readAllLines(README);
    int heading = readme.indexOf("## Embedding in your gateway");
    assertThat(heading).as("README heading").isNotNegative();
    int open = readme.subList(heading, readme.size()).indexOf("```java") + heading;
    int close = readme.subList(open + 1, readme.size()).indexOf("```") + open + 1;

    assertThat(example).hasSizeGreaterThan(15);
    assertThat(readme.subList(open + 1, close)).containsExactlyElementsOf(example);
  }

  @Test
  void withSlf4jSimpleAFailingPolicyIsOneWarningNamingTheFallback() {
    RoutingPolicy broken = new RoutingPolicy() {
      @Override
      public String name() {
        return "broken";
      }

      @Override
      public RoutingDecision route(RoutingContext context) {
        throw new IllegalStateException("bug in the host's policy");
      }
    };
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream old = System.err;
    RoutingDecision first;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try (Router router = Router.newBuilder().policy(broken).build()) {
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("r0").model("m").build());
      Request.Builder b = Request.newBuilder().model("m")
          .prompt(PromptKey.ofText("hello", CacheNamespace.of("m")));
      first = router.route(b.id("a").build());
      router.route(Request.newBuilder().model("m").id("b").prompt(PromptKey.unhashed(5)).build());
    } finally {
      System.setErr(old);
    }

    String log = err.toString(StandardCharsets.UTF_8);
    assertThat(first.isRouted()).isTrue();
    assertThat(log).contains("WARN").contains("kvroute plugin 'policy broken' failed; used the"
        + " least-cost replica instead").contains("bug in the host's policy");
    assertThat(log.lines().filter(l -> l.contains("kvroute plugin")).count()).isEqualTo(1);
  }
}
