package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * A router alone places a prompt no replica holds, on traffic that reuses prefixes, where the
 * least work is in flight among the replicas near the best predicted TTFT
 * ({@link NewPrefixPlacement}), or sheds it under a backlog when it is large; elsewhere
 * hybrid-cost's ranking chooses.
 */
class NewPrefixPlacementTest {
  /** 1,600 tokens: 100 blocks of 16. */
  private static final int PROMPT = 1_600;

  /**
   * replica-0 has the shortest queue but 60,000 tokens of this router's sends in flight; replica-1
   * queues 40 ms more with 2,000 in flight; replica-2 has nothing in flight but queues 5 s, far past
   * twice the best predicted TTFT. {@code heldBlocks} of the prompt are on replica-3, which is busy.
   */
  private static List<CandidateView> fleet(int heldBlocks) {
    List<CandidateView> views = new ArrayList<>();
    views.add(view("replica-0", 0, 60_000, 0));
    views.add(view("replica-1", 40, 2_000, 0));
    views.add(view("replica-2", 5_000, 0, 0));
    views.add(view("replica-3", 3_000, 30_000, heldBlocks));
    return views;
  }

  private static CandidateView view(String id, double queueMillis, long inFlightTokens,
      int matchedBlocks) {
    return CandidateView.newBuilder().replicaId(id).prefill(20, 0.035).cache(0, 1_000_000)
        .estimatedQueueMillis(queueMillis).inFlight((int) (inFlightTokens / 1_000), inFlightTokens)
        .matched(matchedBlocks, matchedBlocks * 16).build();
  }

  private static RoutingContext context(Request request, List<CandidateView> fleet, long seed) {
    return FixedRoutingContext.of(request, fleet, seed);
  }

  /** A placement that has seen {@code held} requests whose prompt some replica held. */
  private static NewPrefixPlacement after(int held) {
    NewPrefixPlacement placement = new NewPrefixPlacement(true);
    for (int i = 0; i < held; i++) {
      Request request = TestRequests.request(PROMPT, i);
      assertThat(placement.place(context(request, fleet(100), 1), 100, false))
          .as("a held prompt is the ranking's to place").isEqualTo(-1);
    }
    return placement;
  }

  @Test
  void onReusedTrafficANewPrefixGoesWhereTheLeastWorkIsInFlightNearTheBestTtft() {
    NewPrefixPlacement placement = after(100);
    Request request = TestRequests.request(PROMPT, 1_000);
    RoutingContext context = context(request, fleet(0), 1);
    assertThat(placement.place(context, 0, false)).isEqualTo(1);
  }

  @Test
  void throughHybridCostTheDecisionCarriesTheChosenReplicasPredictedTtft() {
    // no load bound: replica-0 carries 60 of the fleet's 92 requests in flight, past any bound
    // the option takes, and this test is of the placement, not of the bound
    HybridCostPolicy policy = new HybridCostPolicy(Map.of(), false,
        HybridCostPolicy.Externality.ALL, true, 0);
    Request unique = TestRequests.request(PROMPT, 2_000);
    assertThat(policy.route(context(unique, fleet(0), 1)).replicaId())
        .as("before any reuse: the ranking's choice").isEqualTo("replica-0");
    for (int i = 0; i < 100; i++) {
      policy.route(context(TestRequests.request(PROMPT, i), fleet(100), 1));
    }
    RoutingContext context = context(TestRequests.request(PROMPT, 2_001), fleet(0), 1);
    RoutingDecision d = policy.route(context);
    assertThat(d.replicaId()).isEqualTo("replica-1");
    assertThat(d.cost().totalMillis())
        .isEqualTo(context.estimateMillis(context.candidates().get(1)));
  }

  @Test
  void onTrafficThatReusesNothingTheRuleStaysClosed() {
    NewPrefixPlacement placement = new NewPrefixPlacement(true);
    for (int i = 0; i < 1_000; i++) {
      Request request = TestRequests.request(PROMPT, i);
      assertThat(placement.place(context(request, fleet(0), 1), 0, false)).isEqualTo(-1);
    }
  }

  @Test
  void aPromptHeldSomewhereIsLeftToTheRanking() {
    NewPrefixPlacement placement = after(100);
    Request request = TestRequests.request(PROMPT, 1_000);
    // 30 of 100 blocks held: held; 29: new
    assertThat(placement.place(context(request, fleet(30), 1), 30, false)).isEqualTo(-1);
    assertThat(placement.place(context(request, fleet(29), 1), 29, false)).isEqualTo(1);
  }

  @Test
  void staleCandidatesAreSkippedWhenAskedTo() {
    NewPrefixPlacement placement = after(100);
    List<CandidateView> views = new ArrayList<>(fleet(0));
    views.set(1, CandidateView.newBuilder().replicaId("replica-1").prefill(20, 0.035)
        .cache(0, 1_000_000).estimatedQueueMillis(40).inFlight(2, 2_000).telemetryStale(true)
        .build());
    Request request = TestRequests.request(PROMPT, 1_000);
    assertThat(placement.place(context(request, views, 1), 0, true))
        .as("replica-1 is stale; replica-0 is the only one near the best").isEqualTo(0);
  }

  @Test
  void equalCandidatesShareNewPrefixesAtRandom() {
    NewPrefixPlacement placement = after(100);
    List<CandidateView> idle = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      idle.add(view("replica-" + i, 0, 0, 0));
    }
    Set<Integer> chosen = new HashSet<>();
    for (long seed = 1; seed <= 64; seed++) {
      chosen.add(placement.place(
          context(TestRequests.request(PROMPT, 5_000 + (int) seed), idle, seed), 0, false));
    }
    assertThat(chosen).containsExactlyInAnyOrder(0, 1, 2, 3);
  }

  /**
   * Whatever the fleet: the chosen replica's predicted TTFT is within twice the best plus 50 ms,
   * and none within that holds fewer tokens in flight.
   */
  @Property(tries = 300)
  void theChoiceIsTheLeastWorkInFlightWithinTheTolerance(
      @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 0, max = 4_000) Integer> queues,
      @ForAll @IntRange(min = 0, max = 50) int inFlightSeed) {
    NewPrefixPlacement placement = after(40);
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < queues.size(); i++) {
      long tokens = (i * 7919L + inFlightSeed * 31L) % 11 * 1_000;
      views.add(view("replica-" + i, queues.get(i), tokens, 0));
    }
    RoutingContext context = context(TestRequests.request(PROMPT, inFlightSeed), views, 1);
    int chosen = placement.place(context, 0, false);
    assertThat(chosen).isBetween(0, views.size() - 1);
    double best = views.stream().mapToDouble(context::estimateMillis).min().orElseThrow();
    double limit = best * NewPrefixPlacement.TTFT_TOLERANCE + NewPrefixPlacement.TTFT_SLACK_MILLIS;
    assertThat(context.estimateMillis(views.get(chosen))).isLessThanOrEqualTo(limit);
    for (CandidateView c : views) {
      if (context.estimateMillis(c) <= limit) {
        assertThat(views.get(chosen).inFlightTokens()).isLessThanOrEqualTo(c.inFlightTokens());
      }
    }
  }

  /**
   * Every replica waits at least {@code leastWait} ms; this router's recent requests cost
   * {@code meanWork} ms each. The prompt's own work is 20 + 1,600 x 0.035 = 76 ms everywhere.
   */
  private static List<CandidateView> backlogged(double leastWait, double meanWork) {
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      views.add(CandidateView.newBuilder().replicaId("replica-" + i).prefill(20, 0.035)
          .cache(0, 1_000_000).estimatedQueueMillis(leastWait + 100 * i).inFlight(1, 1_000)
          .meanRequestCostMillis(meanWork).build());
    }
    return views;
  }

  private static Request withBudget(int seed, long budgetMillis) {
    return TestRequests.request(PROMPT, seed).toBuilder()
        .ttftBudget(Duration.ofMillis(budgetMillis)).build();
  }

  @Test
  void underABacklogANewPrefixOverTwiceTheMeanWorkIsShedWithARetryAfter() {
    HybridCostPolicy policy = new HybridCostPolicy(Map.of(), false,
        HybridCostPolicy.Externality.ALL, true,
        LoadBound.DEFAULT_FACTOR);
    for (int i = 0; i < 100; i++) {
      policy.route(context(TestRequests.request(PROMPT, i), fleet(100), 1));
    }
    // a 2 s budget: the least wait, 300 ms, is 100 ms past a tenth of it; 76 ms > 2 x 30 ms
    RoutingDecision d = policy.route(context(withBudget(3_000, 2_000), backlogged(300, 30), 1));
    assertThat(d.isRouted()).isFalse();
    assertThat(d.reason()).isEqualTo(RejectReason.OVERLOADED);
    assertThat(d.retryAfter()).contains(Duration.ofMillis(100));
    assertThat(d.detail()).contains("300 ms").contains("2000 ms");
  }

  @Test
  void aNewPrefixIsPlacedWhenTheWaitIsShortTheRequestSmallOrThereIsNoBudget() {
    NewPrefixPlacement placement = after(100);
    assertThat(placement.place(context(withBudget(1, 2_000), backlogged(200, 30), 1), 0, false))
        .as("a wait of exactly a tenth of the budget").isEqualTo(0);
    assertThat(placement.place(context(withBudget(2, 2_000), backlogged(300, 38), 1), 0, false))
        .as("76 ms is not over twice 38 ms").isEqualTo(0);
    assertThat(placement.place(context(TestRequests.request(PROMPT, 3), backlogged(300, 30), 1),
        0, false)).as("no budget").isEqualTo(0);
    assertThat(placement.place(context(withBudget(4, 2_000), backlogged(300, 30), 1), 0, false))
        .isEqualTo(NewPrefixPlacement.SHED);
  }

  @Test
  void withSheddingOffABacklogNeverSheds() {
    NewPrefixPlacement off = new NewPrefixPlacement(false);
    for (int i = 0; i < 100; i++) {
      off.place(context(TestRequests.request(PROMPT, i), fleet(100), 1), 100, false);
    }
    assertThat(off.place(context(withBudget(5, 2_000), backlogged(5_000, 1), 1), 0, false))
        .isEqualTo(0);
  }

  @Test
  void aHeldPromptIsNeverShed() {
    NewPrefixPlacement placement = after(100);
    List<CandidateView> views = new ArrayList<>(backlogged(300, 30));
    views.set(3, CandidateView.newBuilder().replicaId("replica-3").prefill(20, 0.035)
        .cache(100, 1_000_000).estimatedQueueMillis(600).inFlight(1, 1_000)
        .meanRequestCostMillis(30).matched(30, 480).build());
    assertThat(placement.place(context(withBudget(6, 2_000), views, 1), 30, false)).isEqualTo(-1);
  }

  /**
   * Whatever the waits, budget and mean work: a new prefix is shed exactly when it has a budget,
   * the least wait is over a tenth of it and its own work over twice the mean.
   */
  @Property(tries = 300)
  void aNewPrefixIsShedExactlyWhenTheBacklogAndItsSizeSaySo(
      @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 0, max = 4_000) Integer> waits,
      @ForAll @IntRange(min = 0, max = 5_000) int budget,
      @ForAll @IntRange(min = 0, max = 100) int meanWork) {
    NewPrefixPlacement placement = after(40);
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < waits.size(); i++) {
      views.add(CandidateView.newBuilder().replicaId("replica-" + i).prefill(20, 0.035)
          .cache(0, 1_000_000).estimatedQueueMillis(waits.get(i)).inFlight(1, 1_000)
          .meanRequestCostMillis(meanWork).build());
    }
    RoutingContext context = context(withBudget(budget, budget), views, 1);
    double leastWait = waits.stream().mapToInt(Integer::intValue).min().orElseThrow();
    boolean shed = leastWait > 0.1 * budget && 76 > 2.0 * meanWork;
    int placed = placement.place(context, 0, false);
    if (shed) {
      assertThat(placed).isEqualTo(NewPrefixPlacement.SHED);
    } else {
      assertThat(placed).isBetween(0, views.size() - 1);
    }
  }
}
