package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** SGLang/SMG cache_aware with the CLI defaults 0.3 / 64 / 1.5. */
class CacheAwarePolicyTest {
  private static final RoutingPolicy POLICY = Policies.create("cache-aware");
  private static final Request REQUEST = TestRequests.request(1_000, 5);

  /** Imbalanced iff (max - min > 64) AND (max > 1.5 x min): each threshold below, at and above. */
  @ParameterizedTest(name = "min {0} max {1} -> imbalanced {2}")
  @CsvSource({
      // absolute threshold, relative trivially satisfied (min 0)
      "0, 63, false", "0, 64, false", "0, 65, true",
      // relative threshold with the absolute one satisfied (diff 65..67): 1.5 x 130 = 195
      "130, 194, false", "130, 195, false", "130, 196, true",
      // both needed: diff above 64 but ratio below 1.5; ratio above 1.5 but diff below 64
      "200, 265, false", "10, 20, false", "2, 60, false",
      // both satisfied
      "1, 66, true", "128, 193, true"})
  void imbalanceNeedsBothThresholds(int min, int max, boolean imbalanced) {
    assertThat(CacheAwarePolicy.isImbalanced(min, max, 64, 1.5)).isEqualTo(imbalanced);
    // and through the policy: "hot" holds the whole prompt at load max, "cold" has nothing at min
    List<CandidateView> c = List.of(view("hot", max, REQUEST.promptTokens()), view("cold", min, 0));
    String chosen = POLICY.route(FixedRoutingContext.of(REQUEST, c, 1)).replicaId();
    assertThat(chosen).isEqualTo(imbalanced ? "cold" : "hot");
  }

  /** Balanced: the longest match wins only above cache_threshold (strictly); else least loaded. */
  @ParameterizedTest(name = "match {0}/1000 -> {1}")
  @CsvSource({"0, idle", "299, idle", "300, idle", "301, warm", "1000, warm"})
  void matchRateAboveThreshold(int matched, String expected) {
    List<CandidateView> c = List.of(view("idle", 0, 0), view("warm", 5, matched),
        view("other", 3, matched / 2));
    assertThat(POLICY.route(FixedRoutingContext.of(REQUEST, c, 1)).replicaId()).isEqualTo(expected);
  }

  @Test
  void ties() {
    // imbalanced: argmin load, first in order
    List<CandidateView> c = List.of(view("a", 100, 0), view("b", 2, 0), view("c", 2, 0));
    assertThat(POLICY.route(FixedRoutingContext.of(REQUEST, c, 1)).replicaId()).isEqualTo("b");
    // balanced, equal longest matches: the lower load, then the first
    c = List.of(view("a", 4, 800), view("b", 3, 800), view("c", 3, 800), view("d", 0, 10));
    assertThat(POLICY.route(FixedRoutingContext.of(REQUEST, c, 1)).replicaId()).isEqualTo("b");
  }

  @Test
  void optionsChangeTheSwitch() {
    RoutingPolicy lenient = Policies.create("cache-aware",
        java.util.Map.of("balance_abs_threshold", "1000", "cache_threshold", "0.9"));
    List<CandidateView> c = List.of(view("hot", 500, 950), view("cold", 0, 0));
    assertThat(lenient.route(FixedRoutingContext.of(REQUEST, c, 1)).replicaId()).isEqualTo("hot");
    c = List.of(view("hot", 500, 900), view("cold", 0, 0));
    assertThat(lenient.route(FixedRoutingContext.of(REQUEST, c, 1)).replicaId()).isEqualTo("cold");
  }

  private static CandidateView view(String id, int inFlight, int matchedTokens) {
    return CandidateView.newBuilder().replicaId(id).inFlight(inFlight, 0)
        .matched(matchedTokens / 16, matchedTokens).build();
  }
}
