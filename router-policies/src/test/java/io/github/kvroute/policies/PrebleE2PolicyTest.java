package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.Scorer;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Preble's E2: exploit vs explore, windowed load, rebalancing at 1.5x after warm-up. */
class PrebleE2PolicyTest {
  private final ManualTicker ticker = new ManualTicker();
  private final RoutingPolicy policy = Policies.create("preble-e2", Map.of(), ticker);
  /** 1,000 tokens, 256 planned output tokens. */
  private final Request request = TestRequests.request(1_000, 11);

  private String route(CandidateView... views) {
    return policy.route(FixedRoutingContext.of(request, List.of(views), RandomSource.seeded(1),
        ticker.read(), List.<Scorer>of())).replicaId();
  }

  @Test
  void exploresByWindowedLoad() {
    // cold fleet: equal loads, first wins; its window then holds 20 + 1,000 x 0.035 = 55 ms
    assertThat(route(view("a", 0, 0), view("b", 0, 0))).isEqualTo("a");
    assertThat(route(view("a", 0, 0), view("b", 0, 0))).isEqualTo("b");
    assertThat(route(view("a", 0, 0), view("b", 0, 0))).isEqualTo("a");
    // decode term: active requests x output length x TPOT (150 ms default)
    assertThat(route(view("a", 0, 0), view("b", 0, 1))).isEqualTo("a");
  }

  @Test
  void exploitsWhenNewTokensAreFewerThanTheCachedPrefix() {
    // a holds 896 of 1,000 tokens (104 new < 896) and is far busier: exploit anyway
    assertThat(route(view("a", 896, 3), view("b", 0, 0))).isEqualTo("a");
    // 496 cached, 504 new: not fewer, explore by load
    assertThat(route(view("a", 496, 3), view("b", 0, 0))).isEqualTo("b");
    // among several holders of the longest prefix, the least loaded
    assertThat(route(view("a", 896, 3), view("b", 896, 1), view("c", 0, 0))).isEqualTo("b");
  }

  @Test
  void rebalancesOnlyAfterWarmupAndOnlyWhenItDoesNotInvert() {
    // before warm-up (50 x 2 routed requests) no rebalancing
    assertThat(route(view("a", 896, 10), view("b", 0, 0))).isEqualTo("a");
    for (int i = 0; i < 2 * PrebleE2Policy.WARMUP_PER_REPLICA; i++) {
      route(view("a", 0, 0), view("b", 0, 0));
    }
    // a: 10 active x 256 x 150 ms = 384 s of decode, >= 1.5 x b; moving w = 0.02 + 38.4 s leaves
    // a heavier than b: the request goes to b
    assertThat(route(view("a", 896, 10), view("b", 0, 0))).isEqualTo("b");
    // one active request: 38.4 s, minus w = 38.4 s, would invert: stay on the cache
    assertThat(route(view("a", 896, 1), view("b", 0, 0))).isEqualTo("a");
    RoutingPolicy off = Policies.create("preble-e2", Map.of("rebalance", "false"), ticker);
    for (int i = 0; i < 2 * PrebleE2Policy.WARMUP_PER_REPLICA; i++) {
      off.route(FixedRoutingContext.of(request, List.of(view("a", 0, 0), view("b", 0, 0)),
          RandomSource.seeded(1), ticker.read(), List.<Scorer>of()));
    }
    assertThat(off.route(FixedRoutingContext.of(request, List.of(view("a", 896, 10), view("b", 0, 0)),
        RandomSource.seeded(1), ticker.read(), List.<Scorer>of())).replicaId()).isEqualTo("a");
  }

  @Test
  void loadLeavesTheWindow() {
    assertThat(route(view("a", 0, 0), view("b", 0, 0))).isEqualTo("a");
    assertThat(route(view("a", 0, 0), view("b", 0, 0))).isEqualTo("b");
    assertThat(route(view("a", 0, 0), view("b", 0, 0))).isEqualTo("a");
    // a has 110 ms in its window, b 55 ms
    ticker.advanceSeconds(100);
    assertThat(route(view("a", 0, 0), view("b", 0, 0))).isEqualTo("b");
    // 3 minutes after the first three, only b's fourth request (at 100 s) is left
    ticker.advanceSeconds(90);
    assertThat(route(view("a", 0, 0), view("b", 0, 0))).isEqualTo("a");
  }

  @Test
  void reportedDecodeStepReplacesTheDefaultTpot() {
    io.github.kvroute.api.ReplicaSnapshot fast = io.github.kvroute.api.ReplicaSnapshot.newBuilder()
        .replicaId("a").model("model").decodeStepMillis(10).build();
    PrebleE2Policy p = (PrebleE2Policy) policy;
    CandidateView a = CandidateView.newBuilder().replicaId("a").snapshot(fast).inFlight(2, 0).build();
    assertThat(p.loadCost(a, 0, 100)).isEqualTo(2 * 100 * 10.0);
    assertThat(p.loadCost(view("b", 0, 2), 0, 100)).isEqualTo(2 * 100 * 150.0);
  }

  private static CandidateView view(String id, int matchedTokens, int inFlight) {
    return CandidateView.newBuilder().replicaId(id).matched(matchedTokens / 16, matchedTokens)
        .inFlight(inFlight, 0).build();
  }
}
