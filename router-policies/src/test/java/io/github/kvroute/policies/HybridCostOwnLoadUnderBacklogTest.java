package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * With other routers on unique traffic, a request with a budget goes to the candidate with the
 * fewest of this router's own in-flight prompt tokens while every candidate is backlogged
 * ({@link OwnLoadUnderBacklog}); otherwise the rules before it hold.
 */
class HybridCostOwnLoadUnderBacklogTest {
  private static final double PEERS = 2;

  /**
   * Waits in milliseconds and this router's in-flight prompt tokens per replica: replica-0 has the
   * least predicted TTFT, replica-1 the fewest own tokens in flight.
   */
  private static List<CandidateView> fleet(double[] waits, long[] ownTokens) {
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < waits.length; i++) {
      views.add(CandidateView.newBuilder().replicaId("replica-" + i).prefill(20, 0.035)
          .cache(0, 1_000_000).estimatedQueueMillis(waits[i])
          .inFlight(3, 2 * ownTokens[i] + 100, ownTokens[i]).build());
    }
    return views;
  }

  private static final double[] BACKLOGGED = {400, 1_500, 2_000};
  private static final long[] OWN_TOKENS = {9_000, 1_000, 4_000};

  private static RoutingContext context(Request request, double[] waits, long[] ownTokens,
      double peers) {
    return FixedRoutingContext.withPeerRouters(
        FixedRoutingContext.of(request, fleet(waits, ownTokens), 1), peers);
  }

  private static Request withBudget(int seed) {
    Request r = TestRequests.request(1_600, seed);
    return r.toBuilder().ttftBudget(Duration.ofSeconds(2)).build();
  }

  /** A policy (threshold {@code saturationMillis}) after 100 unique prompts with {@code peers}. */
  private static HybridCostPolicy afterUniqueTraffic(double saturationMillis, double peers) {
    HybridCostPolicy policy = new HybridCostPolicy(Map.of(), false,
        HybridCostPolicy.Externality.ALL, true, LoadBound.DEFAULT_FACTOR, saturationMillis);
    for (int i = 0; i < 100; i++) {
      policy.route(context(TestRequests.request(1_600, 1_000 + i), new double[] {0, 0, 0},
          new long[] {0, 0, 0}, peers));
    }
    return policy;
  }

  @Test
  void aBudgetedRequestOnABackloggedFleetGoesWhereThisRoutersOwnLoadIsLeast() {
    HybridCostPolicy policy = afterUniqueTraffic(PastSaturation.DEFAULT_MILLIS, PEERS);
    for (int seed = 1; seed <= 20; seed++) {
      RoutingContext context = context(withBudget(10_000 + seed), BACKLOGGED, OWN_TOKENS, PEERS);
      RoutingDecision d = policy.route(context);
      assertThat(d.replicaId()).isEqualTo("replica-1");
      // the decision still carries the chosen replica's predicted TTFT, which admission checks
      assertThat(d.cost().totalMillis())
          .isEqualTo(context.estimateMillis(context.candidates().get(1)));
    }
  }

  @Test
  void withoutABudgetOrBelowTheBacklogOrAloneTheLeastTtftRulesHold() {
    HybridCostPolicy peers = afterUniqueTraffic(PastSaturation.DEFAULT_MILLIS, PEERS);
    // no budget: the narrow home keeps the least predicted TTFT (replica-0, far ahead)
    assertThat(peers.route(context(TestRequests.request(1_600, 20_001), BACKLOGGED, OWN_TOKENS,
        PEERS)).replicaId()).isEqualTo("replica-0");
    // one candidate at the threshold or under it: not a backlog
    double[] oneShort = {PastSaturation.DEFAULT_MILLIS, 1_500, 2_000};
    assertThat(peers.route(context(withBudget(20_002), oneShort, OWN_TOKENS, PEERS)).replicaId())
        .isEqualTo("replica-0");
    // a router alone
    HybridCostPolicy alone = afterUniqueTraffic(PastSaturation.DEFAULT_MILLIS, 0);
    assertThat(alone.route(context(withBudget(20_003), BACKLOGGED, OWN_TOKENS, 0)).replicaId())
        .isEqualTo("replica-0");
    // saturation_ms = 0 turns it off
    HybridCostPolicy off = afterUniqueTraffic(0, PEERS);
    assertThat(off.route(context(withBudget(20_004), BACKLOGGED, OWN_TOKENS, PEERS)).replicaId())
        .isEqualTo("replica-0");
  }

  @Test
  void onSharedPrefixesTheHomesRuleHolds() {
    HybridCostPolicy shared = new HybridCostPolicy(Map.of(), false,
        HybridCostPolicy.Externality.ALL, true, LoadBound.DEFAULT_FACTOR);
    for (int i = 0; i < 200; i++) {
      shared.route(context(TestRequests.request(1_600, i % 3), new double[] {0, 0, 0},
          new long[] {0, 0, 0}, PEERS));
    }
    RoutingDecision d = shared.route(context(withBudget(1), BACKLOGGED, OWN_TOKENS, PEERS));
    assertThat(d.replicaId()).isNotEqualTo("replica-1");
  }

  @Test
  void equalOwnLoadsGoToTheBetterRanked() {
    HybridCostPolicy policy = afterUniqueTraffic(PastSaturation.DEFAULT_MILLIS, PEERS);
    long[] tied = {5_000, 1_000, 1_000};
    RoutingDecision d = policy.route(context(withBudget(30_001), BACKLOGGED, tied, PEERS));
    assertThat(d.replicaId()).as("replica-1 waits 1,500 ms, replica-2 2,000 ms")
        .isEqualTo("replica-1");
    double[] swapped = {400, 2_000, 1_500};
    assertThat(policy.route(context(withBudget(30_002), swapped, tied, PEERS)).replicaId())
        .isEqualTo("replica-2");
  }
}
