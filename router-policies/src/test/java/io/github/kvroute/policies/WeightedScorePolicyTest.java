package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** llm-d's default profile: 3 x prefix + 2 x queue + 2 x kv. */
class WeightedScorePolicyTest {
  /** 20 blocks of 16 tokens. */
  private static final Request REQUEST = TestRequests.request(320, 8);
  private static final RoutingPolicy POLICY = Policies.create("weighted-score");

  @Test
  void allQueuesEqualScoreOneForEveryone() {
    assertThat(WeightedScorePolicy.queueScore(4, 4, 4)).isEqualTo(1.0);
    // equal queues and KV: the prefix decides
    List<CandidateView> c = List.of(view("a", 7, 0.5, 5), view("b", 7, 0.5, 10),
        view("c", 7, 0.5, 0));
    assertThat(POLICY.route(FixedRoutingContext.of(REQUEST, c, 1)).replicaId()).isEqualTo("b");
    WeightedScorePolicy p = (WeightedScorePolicy) POLICY;
    // 3 x 10/20 + 2 x 1.0 + 2 x 0.5
    assertThat(p.score(c.get(1), 20, 7, 7)).isCloseTo(4.5, within(1e-12));
  }

  @ParameterizedTest(name = "q {0} in [{1}, {2}] -> {3}")
  @CsvSource({"0, 0, 10, 1.0", "10, 0, 10, 0.0", "5, 0, 10, 0.5", "3, 2, 6, 0.75", "6, 6, 6, 1.0"})
  void queueScoreIsMinMaxNormalised(int q, int min, int max, double expected) {
    assertThat(WeightedScorePolicy.queueScore(q, min, max)).isEqualTo(expected);
  }

  @Test
  void weightsTradeCacheForLoad() {
    // "warm" holds the whole prompt but has the longest queue and a fuller cache
    List<CandidateView> c = List.of(view("warm", 10, 0.9, 20), view("idle", 0, 0.1, 0));
    // warm: 3 x 1 + 2 x 0 + 2 x 0.1 = 3.2; idle: 0 + 2 x 1 + 2 x 0.9 = 3.8
    assertThat(POLICY.route(FixedRoutingContext.of(REQUEST, c, 1)).replicaId()).isEqualTo("idle");
    RoutingPolicy cacheHeavy = Policies.create("weighted-score", Map.of("prefix_weight", "5"));
    // warm: 5 + 0.2 = 5.2 > 3.8
    assertThat(cacheHeavy.route(FixedRoutingContext.of(REQUEST, c, 1)).replicaId()).isEqualTo("warm");
  }

  @Test
  void unknownQueueAndKvCountAsZero() {
    CandidateView bare = CandidateView.newBuilder().replicaId("bare").build();
    assertThat(WeightedScorePolicy.waiting(bare)).isZero();
    assertThat(WeightedScorePolicy.kvScore(bare)).isEqualTo(1.0);
    assertThat(WeightedScorePolicy.prefixScore(bare, 0)).isZero();
  }

  @Test
  void prefixIsCappedAtMaxPrefixBlocks() {
    WeightedScorePolicy capped = (WeightedScorePolicy) Policies.create("weighted-score",
        Map.of("max_prefix_blocks", "8"));
    assertThat(WeightedScorePolicy.prefixScore(view("a", 0, 0, 12), 8)).isEqualTo(1.0);
    assertThat(capped.score(view("a", 0, 0, 12), 8, 0, 0)).isEqualTo(3 + 2 + 2);
  }

  @Test
  void tiesAreBrokenAtRandom() {
    List<CandidateView> c = List.of(view("a", 1, 0.2, 3), view("b", 1, 0.2, 3));
    Map<String, Integer> counts = SimplePoliciesTest.counts(POLICY, c, 2_000);
    assertThat(counts.get("a")).isBetween(850, 1150);
  }

  private static CandidateView view(String id, int waiting, double kv, int matchedBlocks) {
    ReplicaSnapshot s = ReplicaSnapshot.newBuilder().replicaId(id).model("model")
        .waitingRequests(waiting).build();
    return CandidateView.newBuilder().replicaId(id).snapshot(s).kvUtilization(kv)
        .matched(matchedBlocks, matchedBlocks * 16).build();
  }
}
