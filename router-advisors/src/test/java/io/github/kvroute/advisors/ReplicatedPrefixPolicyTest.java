package io.github.kvroute.advisors;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.core.RoutingContexts;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** A replicated prefix goes to the cheapest of its holders; everything else to the wrapped policy. */
class ReplicatedPrefixPolicyTest {
  private static final CacheNamespace NS = CacheNamespace.of("m");
  /** Always the first candidate: a stand-in for a policy that pins a prefix to one replica. */
  private static final RoutingPolicy FIRST = new RoutingPolicy() {
    @Override
    public String name() {
      return "first";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      return RoutingDecision.routed(context.candidates().get(0), CostBreakdown.empty());
    }
  };

  private final ManualTicker ticker = new ManualTicker();
  private final HotPrefixAdvisor advisor = HotPrefixAdvisor.create(ReplicationConfig.defaults()
      .withMaxReplicas(2).withTiming(Duration.ZERO, Duration.ofSeconds(60), Duration.ofSeconds(60)),
      ticker);
  private final ReplicatedPrefixPolicy policy = ReplicatedPrefixPolicy.wrap(FIRST, advisor, 512);

  private static PromptKey prompt(int firstToken, int tokens) {
    return PromptKey.ofTokens(IntStream.range(firstToken, firstToken + tokens).toArray(), NS);
  }

  private static Request request(PromptKey prompt) {
    return Request.newBuilder().id("r").model("m").prompt(prompt).maxOutputTokens(16).build();
  }

  /** replica-0 holds the 1,024-token prompt and is 500 ms behind; the others are idle and cold. */
  private static List<CandidateView> fleet(int warmTokens) {
    return List.of(
        CandidateView.newBuilder().replicaId("replica-0").estimatedQueueMillis(500)
            .matched(warmTokens / 16, warmTokens).prefill(0, 0.04).build(),
        CandidateView.newBuilder().replicaId("replica-1").prefill(0, 0.04).build(),
        CandidateView.newBuilder().replicaId("replica-2").prefill(0, 0.04).build());
  }

  private RoutingDecision route(PromptKey prompt, int warmTokens) {
    return policy.route(RoutingContexts.fixed(request(prompt), fleet(warmTokens),
        RandomSource.seeded(1), ticker.read(), CostModel.defaults()));
  }

  @Test
  void aPrefixThatIsNotReplicatedGoesToTheWrappedPolicy() {
    assertThat(route(prompt(0, 1_024), 1_024).replicaId()).isEqualTo("replica-0");
    assertThat(advisor.advice().hotPrefixes()).isEmpty();
  }

  @Test
  void aReplicatedPrefixGoesToTheCheapestOfItsHolders_theWarmOneAndOneMore() {
    PromptKey hot = prompt(0, 1_024);
    // 100 hits in a second of a prefix whose copy costs 1,024 x 0.04 ms: a bill of ~390 ms/s a
    // second later, with a rate averaged over 10 s: not yet one engine's worth
    for (int i = 0; i < 100; i++) {
      route(hot, 1_024);
    }
    ticker.advanceSeconds(1);
    advisor.evaluate();
    assertThat(advisor.advice().replicasFor(hot.blockHash(31))).isEqualTo(1);
    for (int i = 0; i < 400; i++) {
      route(hot, 1_024);
    }
    ticker.advanceSeconds(1);
    advisor.evaluate();
    assertThat(advisor.advice().replicasFor(hot.blockHash(31))).isEqualTo(2);

    // the warm holder is 500 ms behind, a cold holder's copy (41 ms) is left out: the cold holder
    String chosen = route(hot, 1_024).replicaId();
    assertThat(chosen).isIn("replica-1", "replica-2");
    // the same holder every time: the second holder is picked by a rendezvous hash, not at random
    for (int i = 0; i < 20; i++) {
      assertThat(route(hot, 1_024).replicaId()).isEqualTo(chosen);
    }
    // a prompt sharing the first 512 tokens shares the prefix; another prefix does not
    assertThat(route(PromptKey.ofTokens(IntStream.concat(IntStream.range(0, 512),
        IntStream.range(90_000, 90_512)).toArray(), NS), 512).replicaId()).isEqualTo(chosen);
    assertThat(route(prompt(50_000, 1_024), 0).replicaId()).isEqualTo("replica-0");
  }

  @Test
  void aPromptShorterThanThePrefixIsLeftToTheWrappedPolicy() {
    for (int i = 0; i < 1_000; i++) {
      route(prompt(0, 500), 500);
    }
    ticker.advanceSeconds(1);
    advisor.evaluate();

    assertThat(advisor.trackedPrefixes()).isZero();
  }

  @Test
  void builtToEvaluate_requestsDriveTheAdvisorOncePerInterval() {
    ReplicatedPrefixPolicy evaluating = ReplicatedPrefixPolicy.wrapEvaluating(FIRST, advisor, 512,
        Duration.ofSeconds(1).toNanos());
    PromptKey hot = prompt(0, 1_024);
    for (int step = 0; step < 40; step++) {
      for (int i = 0; i < 25; i++) {
        evaluating.route(RoutingContexts.fixed(request(hot), fleet(1_024), RandomSource.seeded(1),
            ticker.read(), CostModel.defaults()));
      }
      ticker.advanceMillis(100);
    }

    // the first request sets the clock; evaluations at 1, 2 and 3 s
    assertThat(advisor.advice().atNanos()).isEqualTo(Duration.ofSeconds(3).toNanos());
    // 250 hits/s folded into a 10 s average over 3 s: 250 (1 - e^-0.3) = 65
    assertThat(advisor.hitsPerSecond(hot.blockHash(31))).isBetween(55.0, 75.0);
    assertThat(evaluating.name()).isEqualTo("hot-prefix-replication");
  }
}
