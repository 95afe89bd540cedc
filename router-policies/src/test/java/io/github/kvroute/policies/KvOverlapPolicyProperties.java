package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;

/** Dynamo's KV router cost and selection. */
class KvOverlapPolicyProperties {
  /** 10 blocks of 16 tokens. */
  private static final Request REQUEST = TestRequests.request(160, 6);

  /**
   * The docs' example: W1 cached 2 blocks, 8 to prefill, 10 decode; W2 5 / 5 / 5; W3 8 / 2 / 9.
   * Costs 18, 10, 11: W2.
   */
  @Example
  void dynamoDocsExample() {
    List<CandidateView> workers = List.of(view("W1", 2, 2), view("W2", 5, 0), view("W3", 8, 7));
    KvOverlapPolicy policy = (KvOverlapPolicy) Policies.create("kv-overlap");
    assertThat(policy.cost(workers.get(0), 160, 16)).isEqualTo(18.0);
    assertThat(policy.cost(workers.get(1), 160, 16)).isEqualTo(10.0);
    assertThat(policy.cost(workers.get(2), 160, 16)).isEqualTo(11.0);
    assertThat(policy.route(FixedRoutingContext.of(REQUEST, workers, 1)).replicaId()).isEqualTo("W2");
    // overlap_score_weight 0 ignores the cache: decode blocks alone (10, 5, 9) still pick W2; a
    // heavier weight favours the cache: 3 x 2 + 9 = 15 beats 3 x 5 + 5 = 20
    KvOverlapPolicy heavy =
        (KvOverlapPolicy) Policies.create("kv-overlap", Map.of("overlap_score_weight", "3"));
    assertThat(heavy.route(FixedRoutingContext.of(REQUEST, workers, 1)).replicaId()).isEqualTo("W3");
  }

  @Property(tries = 200)
  void zeroTemperatureAlwaysPicksAMinimumCostWorker(
      @ForAll("workers") List<CandidateView> workers, @ForAll long seed) {
    KvOverlapPolicy policy = (KvOverlapPolicy) Policies.create("kv-overlap");
    String chosen = policy.route(FixedRoutingContext.of(REQUEST, workers, seed)).replicaId();
    double min = workers.stream().mapToDouble(w -> policy.cost(w, 160, 16)).min().orElseThrow();
    CandidateView c = workers.stream().filter(w -> w.replicaId().equals(chosen)).findFirst()
        .orElseThrow();
    assertThat(policy.cost(c, 160, 16)).isEqualTo(min);
  }

  @Property(tries = 50)
  void positiveTemperaturePicksOnlyPossibleWorkersAndTheCheapestMostOften(
      @ForAll("workers") List<CandidateView> workers,
      @ForAll @DoubleRange(min = 0.05, max = 2.0) double temperature, @ForAll long seed) {
    KvOverlapPolicy policy = (KvOverlapPolicy) Policies.create("kv-overlap",
        Map.of("temperature", Double.toString(temperature)));
    double[] p = policy.probabilities(workers, 160, 16);
    assertThat(java.util.Arrays.stream(p).sum()).isCloseTo(1.0, within(1e-9));
    RoutingContext ctx = FixedRoutingContext.of(REQUEST, workers, seed);
    Map<String, Integer> counts = new HashMap<>();
    int draws = 4_000;
    for (int i = 0; i < draws; i++) {
      counts.merge(policy.route(ctx).replicaId(), 1, Integer::sum);
    }
    int best = 0;
    for (int i = 0; i < workers.size(); i++) {
      if (p[i] > p[best]) {
        best = i;
      }
      if (p[i] == 0) {
        assertThat(counts).doesNotContainKey(workers.get(i).replicaId());
      }
    }
    // the cheapest worker has the highest probability; with 4,000 draws it is drawn most often
    // unless another worker is nearly as likely
    int top = counts.getOrDefault(workers.get(best).replicaId(), 0);
    for (int i = 0; i < workers.size(); i++) {
      if (p[best] - p[i] > 0.08) {
        assertThat(top).isGreaterThan(counts.getOrDefault(workers.get(i).replicaId(), 0));
      }
    }
  }

  @Example
  void equalCostsAreUniformAtAnyTemperature() {
    List<CandidateView> same = List.of(view("a", 3, 1), view("b", 3, 1));
    KvOverlapPolicy policy =
        (KvOverlapPolicy) Policies.create("kv-overlap", Map.of("temperature", "0.5"));
    assertThat(policy.probabilities(same, 160, 16)).containsExactly(0.5, 0.5);
  }

  @Provide
  Arbitrary<List<CandidateView>> workers() {
    Arbitrary<int[]> w = Combinators.combine(Arbitraries.integers().between(0, 10),
        Arbitraries.integers().between(0, 40)).as((m, a) -> new int[] {m, a});
    return w.list().ofMinSize(1).ofMaxSize(8).map(list -> {
      List<CandidateView> out = new ArrayList<>();
      for (int i = 0; i < list.size(); i++) {
        out.add(view("w" + i, list.get(i)[0], list.get(i)[1]));
      }
      return out;
    });
  }

  /** A worker holding {@code cachedBlocks} of the prompt with {@code activeBlocks} in flight. */
  static CandidateView view(String id, int cachedBlocks, int activeBlocks) {
    return CandidateView.newBuilder().replicaId(id).matched(cachedBlocks, cachedBlocks * 16)
        .inFlight(activeBlocks == 0 ? 0 : 1, activeBlocks * 16L).build();
  }
}
