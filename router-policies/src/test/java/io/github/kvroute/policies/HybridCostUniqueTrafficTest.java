package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * With other routers on the fleet, hybrid-cost ranks traffic that shares no prefixes apart
 * ({@link HybridCostPolicy#SHARED_TRAFFIC_SHARE}): the predicted TTFT, no queueing term, a narrow
 * home for a request with a budget and none without. Alone, or on shared prefixes, it keeps its
 * rules.
 */
class HybridCostUniqueTrafficTest {
  private static final double PEERS = 2;

  /**
   * replica-0 is idle by its report but has three of this router's sends queued since, so a
   * 1,600-token prompt (about 76 ms of prefill) there delays three requests; replica-1 reports a
   * 60 ms queue and has none queued, past the narrow home's 1.5 x 76 + 10 ms; replica-2 and
   * replica-3 are far too busy.
   */
  private static List<CandidateView> fleet() {
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      views.add(CandidateView.newBuilder().replicaId("replica-" + i).prefill(20, 0.035)
          .cache(0, 1_000_000).dispatchedSinceSnapshot(i == 0 ? 3 : 0)
          .estimatedQueueMillis(i == 0 ? 0 : i == 1 ? 60 : 5_000).build());
    }
    return views;
  }

  private static RoutingContext context(Request request, double peers) {
    return FixedRoutingContext.withPeerRouters(FixedRoutingContext.of(request, fleet(), 1), peers);
  }

  private static HybridCostPolicy policy() {
    return new HybridCostPolicy(Map.of(), false, HybridCostPolicy.Externality.ALL, true,
        LoadBound.DEFAULT_FACTOR);
  }

  /** A policy that has routed {@code requests} requests over {@code prompts} distinct prompts. */
  private static HybridCostPolicy after(int requests, int prompts, double peers) {
    HybridCostPolicy policy = policy();
    for (int i = 0; i < requests; i++) {
      policy.route(context(TestRequests.request(1_600, 1_000 + i % prompts), peers));
    }
    return policy;
  }

  @Test
  void routersOnUniquePromptsTakeTheLeastPredictedTtft_onSharedOnesTheQueueItAddsCounts() {
    HybridCostPolicy unique = after(100, 100, PEERS);
    HybridCostPolicy shared = after(200, 3, PEERS);
    for (int seed = 1; seed <= 40; seed++) {
      Request request = TestRequests.request(1_600, 10_000 + seed);
      RoutingContext context = context(request, PEERS);
      String leastTtft = "replica-0";
      for (CandidateView c : context.candidates()) {
        assertThat(context.estimateMillis(c)).as("the fleet as described")
            .isGreaterThanOrEqualTo(context.estimateMillis(context.candidates().get(0)));
      }
      RoutingDecision u = unique.route(context);
      assertThat(u.replicaId()).isEqualTo(leastTtft);
      assertThat(u.score().getAsDouble()).as("no externality, the risk at weight 1")
          .isEqualTo(u.cost().totalMillis());
      RoutingDecision s = shared.route(context(request, PEERS));
      // replica-0's three queued requests cost 3 x 76 ms more than replica-1's 60 ms queue
      assertThat(s.replicaId()).isEqualTo("replica-1");
      assertThat(s.score().getAsDouble()).isGreaterThanOrEqualTo(s.cost().totalMillis());
    }
  }

  /**
   * Two replicas a millisecond apart: a unique prompt without a budget takes the better one every
   * time; with a budget its home (a hash of the prompt over the replicas) within 1.5x the best
   * holds, so some prompts go to the other.
   */
  @Test
  void onUniqueTrafficOnlyARequestWithABudgetGoesHome() {
    HybridCostPolicy policy = after(100, 100, PEERS);
    List<CandidateView> close = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      close.add(CandidateView.newBuilder().replicaId("replica-" + i).prefill(20, 0.035)
          .cache(0, 1_000_000).estimatedQueueMillis(i == 0 ? 100 : 101).build());
    }
    int elsewhere = 0;
    for (int seed = 1; seed <= 40; seed++) {
      Request plain = TestRequests.request(1_600, 40_000 + seed);
      RoutingContext context =
          FixedRoutingContext.withPeerRouters(FixedRoutingContext.of(plain, close, 1), PEERS);
      assertThat(policy.route(context).replicaId()).isEqualTo("replica-0");
      // another prompt: one seen twice is not unique traffic
      Request budgeted = TestRequests.request(1_600, 50_000 + seed).toBuilder()
          .ttftBudget(java.time.Duration.ofSeconds(5)).build();
      RoutingDecision d = policy.route(FixedRoutingContext.withPeerRouters(
          FixedRoutingContext.of(budgeted, close, 1), PEERS));
      elsewhere += d.replicaId().equals("replica-1") ? 1 : 0;
    }
    assertThat(elsewhere).as("budgeted prompts sent home to replica-1").isBetween(5, 35);
  }

  @Test
  void aRouterThatSawUniqueTrafficNoticesWhenItStartsSharingPrefixes() {
    HybridCostPolicy policy = after(100, 100, PEERS);
    assertThat(policy.route(context(TestRequests.request(1_600, 20_000), PEERS)).replicaId())
        .isEqualTo("replica-0");
    // the same router, now on three recurring prompts for three memories of its repeat share
    for (int i = 0; i < 600; i++) {
      RoutingContext context = FixedRoutingContext.withPeerRouters(FixedRoutingContext.of(
          TestRequests.request(1_600, i % 3), fleet(), RandomSource.seeded(1),
          i * 100_000_000L, CostModel.defaults()), PEERS);
      policy.route(context);
    }
    RoutingContext later = FixedRoutingContext.withPeerRouters(FixedRoutingContext.of(
        TestRequests.request(1_600, 20_001), fleet(), RandomSource.seeded(1), 600 * 100_000_000L,
        CostModel.defaults()), PEERS);
    assertThat(policy.route(later).replicaId()).as("the queue it adds counts again")
        .isEqualTo("replica-1");
  }

  /**
   * replica-0 holds a full cache and predicts 76 ms; replica-1 has room and predicts 86 ms. The
   * prompt's 1,600 new tokens would evict as many on replica-0 (56 ms of recompute, were they asked
   * for again).
   */
  @Test
  void routersOnUniquePromptsDoNotPriceTheBlocksAPlacementEvicts() {
    List<CandidateView> fleet = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      fleet.add(CandidateView.newBuilder().replicaId("replica-" + i).prefill(20, 0.035)
          .cache(i == 0 ? 1_000_000 : 0, 1_000_000).estimatedQueueMillis(i == 0 ? 0 : 10)
          .build());
    }
    HybridCostPolicy unique = after(100, 100, PEERS);
    for (int seed = 1; seed <= 20; seed++) {
      Request request = TestRequests.request(1_600, 60_000 + seed);
      RoutingContext context =
          FixedRoutingContext.withPeerRouters(FixedRoutingContext.of(request, fleet, 1), PEERS);
      assertThat(Externalities.pollutionMillis(request, fleet.get(0))).as("the fleet as described")
          .isGreaterThan(context.estimateMillis(fleet.get(1)) - context.estimateMillis(fleet.get(0)));
      RoutingDecision d = unique.route(context);
      assertThat(d.replicaId()).isEqualTo("replica-0");
      assertThat(d.score().getAsDouble()).isEqualTo(d.cost().totalMillis());
    }
  }

  /**
   * One prompt in eight repeats the one before, a second apart, and the rest are new: the traffic
   * of a conversation trace with long unique turns, shared by three routers. Agreeing on homes for
   * the eighth costs the rest their best replica, so it is ranked as unique traffic.
   */
  @Test
  void anEighthOfThePromptsRepeatingIsStillUniqueTraffic() {
    HybridCostPolicy policy = policy();
    for (int i = 0; i < 300; i++) {
      int prompt = 1_000 + i - (i % 8 == 7 ? 1 : 0);
      policy.route(FixedRoutingContext.withPeerRouters(FixedRoutingContext.of(
          TestRequests.request(1_600, prompt), fleet(), RandomSource.seeded(i),
          i * 1_000_000_000L, CostModel.defaults()), PEERS));
    }
    RoutingDecision d = policy.route(FixedRoutingContext.withPeerRouters(FixedRoutingContext.of(
        TestRequests.request(1_600, 20_002), fleet(), RandomSource.seeded(1),
        300 * 1_000_000_000L, CostModel.defaults()), PEERS));
    assertThat(d.replicaId()).as("the least predicted TTFT, no queueing term")
        .isEqualTo("replica-0");
  }

  /** Four idle replicas alike: every candidate ties. */
  private static List<CandidateView> idle() {
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      views.add(CandidateView.newBuilder().replicaId("replica-" + i).prefill(20, 0.035)
          .cache(0, 1_000_000).build());
    }
    return views;
  }

  /** Where {@code policy} sends {@code n} tied prompts at {@code nowNanos}, each with its own seed. */
  private static java.util.Set<String> tied(HybridCostPolicy policy, long seed, int n,
      long nowNanos, double peers) {
    java.util.Set<String> placed = new java.util.TreeSet<>();
    for (int i = 0; i < n; i++) {
      RoutingContext context = FixedRoutingContext.of(
          TestRequests.request(1_600, 70_000 + (int) seed * 1_000 + i),
          idle(), RandomSource.seeded(seed * 1_000 + i), nowNanos, CostModel.defaults());
      placed.add(policy.route(peers > 0
          ? FixedRoutingContext.withPeerRouters(context, peers) : context).replicaId());
    }
    return placed;
  }

  @Test
  void withPeersTiesFollowTheRoutersOwnOrder_drawnAgainEachPeriod() {
    long period = HybridCostPolicy.TIE_ORDER_SECONDS * 1_000_000_000L;
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(tied(after(100, 100, PEERS), seed, 30, 0, PEERS))
          .as("one favourite within a period, whatever the randomness draws later").hasSize(1);
    }
    java.util.Set<String> favourites = new java.util.TreeSet<>();
    HybridCostPolicy policy = after(100, 100, PEERS);
    for (int k = 0; k < 12; k++) {
      java.util.Set<String> inPeriod = tied(policy, k + 1, 10, k * period + period / 2, PEERS);
      assertThat(inPeriod).hasSize(1);
      favourites.addAll(inPeriod);
    }
    assertThat(favourites).as("a new order each period").hasSizeGreaterThanOrEqualTo(3);
    assertThat(tied(after(100, 100, 0), 1, 30, 0, 0)).as("alone, drawn at random")
        .hasSizeGreaterThan(1);
  }

  @Test
  void tieOrderMsSetsHowLongTheOrderLasts_zeroForTheRoutersLife() {
    long minute = HybridCostPolicy.TIE_ORDER_SECONDS * 1_000_000_000L;
    HybridCostPolicy forLife = configured("0");
    java.util.Set<String> favourites = new java.util.TreeSet<>();
    for (int k = 0; k < 12; k++) {
      favourites.addAll(tied(forLife, k + 1, 10, k * minute * 60 + 1, PEERS));
    }
    assertThat(favourites).as("one favourite over twelve hours").hasSize(1);

    HybridCostPolicy perSecond = configured("1000");
    favourites.clear();
    for (int k = 0; k < 12; k++) {
      java.util.Set<String> inSecond = tied(perSecond, k + 1, 10, k * 1_000_000_000L + 1, PEERS);
      assertThat(inSecond).hasSize(1);
      favourites.addAll(inSecond);
    }
    assertThat(favourites).as("a new order each second").hasSizeGreaterThanOrEqualTo(3);
  }

  /** hybrid-cost as the registry builds it with {@code tie_order_ms}, after 100 unique prompts. */
  private static HybridCostPolicy configured(String tieOrderMillis) {
    HybridCostPolicy policy = (HybridCostPolicy) Policies.tryCreate("hybrid-cost",
        Map.of("tie_order_ms", tieOrderMillis)).value();
    for (int i = 0; i < 100; i++) {
      policy.route(context(TestRequests.request(1_600, 1_000 + i), PEERS));
    }
    return policy;
  }

  @Test
  void aLoneRouterPricesTheQueueWhateverItsTraffic() {
    HybridCostPolicy alone = after(100, 100, 0);
    for (int seed = 1; seed <= 20; seed++) {
      RoutingDecision d = alone.route(context(TestRequests.request(1_600, 10_000 + seed), 0));
      assertThat(d.replicaId()).as("the queue it adds counts").isEqualTo("replica-1");
    }
  }
}
