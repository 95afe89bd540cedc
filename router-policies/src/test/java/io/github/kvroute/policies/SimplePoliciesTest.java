package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** random, least-request, least-outstanding-tokens, least-kv. */
class SimplePoliciesTest {
  private static final Request REQUEST = TestRequests.request(64, 1);

  @Test
  void randomIsUniform() {
    List<CandidateView> c = List.of(view("a").build(), view("b").build(), view("c").build());
    Map<String, Integer> counts = counts(Policies.create("random"), c, 3_000);
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(900, 1100));
  }

  @Test
  void leastRequestTakesFewestInFlightAndBreaksTiesAtRandom() {
    List<CandidateView> c = List.of(view("a").inFlight(3, 10).build(),
        view("b").inFlight(1, 999_999).build(), view("c").inFlight(1, 5).build(),
        view("d").inFlight(2, 0).build());
    Map<String, Integer> counts = counts(Policies.create("least-request"), c, 2_000);
    assertThat(counts).containsOnlyKeys("b", "c");
    assertThat(counts.get("b")).isBetween(850, 1150);
  }

  @Test
  void leastOutstandingTokensTakesLeastWorkFirstOnTies() {
    List<CandidateView> c = List.of(view("a").estimatedOutstandingTokens(500).build(),
        view("b").estimatedOutstandingTokens(200).inFlight(9, 0).build(),
        view("c").estimatedOutstandingTokens(200).build(),
        view("d").estimatedOutstandingTokens(900).build());
    assertThat(counts(Policies.create("least-outstanding-tokens"), c, 50)).containsOnlyKeys("b");
  }

  @Test
  void leastKvTakesLowestKnownUsageAndSkipsUnknown() {
    List<CandidateView> c = List.of(view("a").kvUtilization(0.7).build(), view("b").build(),
        view("c").kvUtilization(0.2).build(), view("d").kvUtilization(0.2).build());
    Map<String, Integer> counts = counts(Policies.create("least-kv"), c, 2_000);
    assertThat(counts).containsOnlyKeys("c", "d");
    assertThat(counts.get("c")).isBetween(850, 1150);
  }

  @Test
  void leastKvReadsTheReportWhenTheViewHasNoBlockSize() {
    ReplicaSnapshot s = ReplicaSnapshot.newBuilder().replicaId("a").model("model")
        .kvBlocks(10, 100).build();
    List<CandidateView> c = List.of(view("a").snapshot(s).build(),
        view("b").kvUtilization(0.5).build());
    assertThat(counts(Policies.create("least-kv"), c, 20)).containsOnlyKeys("a");
  }

  @Test
  void leastKvWithNothingKnownIsUniform() {
    List<CandidateView> c = List.of(view("a").build(), view("b").build());
    Map<String, Integer> counts = counts(Policies.create("least-kv"), c, 2_000);
    assertThat(counts.get("a")).isBetween(850, 1150);
  }

  static CandidateView.Builder view(String id) {
    return CandidateView.newBuilder().replicaId(id);
  }

  static Map<String, Integer> counts(RoutingPolicy p, List<CandidateView> c, int n) {
    RoutingContext ctx = FixedRoutingContext.of(REQUEST, c, 42);
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < n; i++) {
      counts.merge(p.route(ctx).replicaId(), 1, Integer::sum);
    }
    return counts;
  }
}
