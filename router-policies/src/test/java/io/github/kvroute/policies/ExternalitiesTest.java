package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What a placement costs other requests, and how hybrid-cost ranks with it. */
class ExternalitiesTest {
  // 1,600 tokens = 100 blocks of 16
  private final Request request = TestRequests.request(1_600, 1);

  private static CandidateView view(String id, int matchedBlocks, long cached, long capacity) {
    return CandidateView.newBuilder().replicaId(id).matched(matchedBlocks, matchedBlocks * 16)
        .cache(cached, capacity).prefill(20, 0.035).build();
  }

  @ParameterizedTest(name = "matched {0}, cached {1} of {2} -> evicts {3} blocks")
  @CsvSource({
      // room for all 100 new blocks: nothing evicted
      "0,   0,   1000, 0",
      "0,   900, 1000, 0",
      // full: each new block evicts one
      "0,   1000, 1000, 100",
      "0,   950,  1000, 50",
      // matched blocks are not new
      "60,  1000, 1000, 40",
      // evictions never exceed what is inserted
      "0,   5000, 1000, 100",
      "100, 1000, 1000, 0",
  })
  void pollutionIsTheRecomputeOfWhatTheNewBlocksEvict(
      int matched, long cached, long capacity, long evicted) {
    assertThat(Externalities.pollutionMillis(request, view("r", matched, cached, capacity)))
        .isCloseTo(evicted * 16 * 0.035, within(1e-9));
  }

  @ParameterizedTest(name = "arrivals {0}/s x {1} ms -> factor {2}")
  @CsvSource({
      "0,   100, 0.0",
      "5,   100, 1.0",      // rho 0.5
      "7.5, 100, 3.0",      // rho 0.75
      "20,  100, 9.0",      // rho 2.0, capped at 0.9
  })
  void withoutATtftHistogram_theFleetsRhoOverOneMinusRho_capped(
      double arrivals, double cost, double factor) {
    CandidateView v = CandidateView.newBuilder().arrivalsPerSecond(arrivals)
        .meanRequestCostMillis(cost).build();

    assertThat(Externalities.fleetRequestsInSystem(List.of(v, v))).isCloseTo(factor, within(1e-9));
    assertThat(Externalities.fleetRequestsInSystem(List.of())).isZero();
    assertThat(Externalities.requestsInSystem(v, 2.5)).as("no TTFT: the fleet's").isEqualTo(2.5);
  }

  @ParameterizedTest(name = "{0} req/s x TTFT {1} ms -> {2} in system")
  @CsvSource({
      "0,   300, 0.0",
      "10,  100, 1.0",
      "20,  250, 5.0",
      "40,  500, 9.0",      // 20 by Little's law, capped
  })
  void withATtftHistogram_littlesLawPerReplica(double arrivals, double ttft, double inSystem) {
    CandidateView v = CandidateView.newBuilder().arrivalsPerSecond(arrivals)
        .recentTtftMillis(ttft).prefill(20, 0.035).build();

    assertThat(Externalities.requestsInSystem(v, 7)).isCloseTo(inSystem, within(1e-9));
    // 1,600 uncached tokens: 20 + 1,600 x 0.035 = 76 ms of prefill, delaying each of them
    assertThat(Externalities.queueingMillis(request, v, 7)).isCloseTo(76 * inSystem, within(1e-9));
  }

  @ParameterizedTest(name = "Little {0}, {1} waiting + {2} sent since -> {3}")
  @CsvSource({
      // no backlog: the steady-state count
      "1.0, 0,  0, 1.0",
      // a backlog larger than Little's law says counts as it is, uncapped
      "1.0, 20, 5, 25.0",
      "9.0, 40, 0, 40.0",
      // a backlog smaller than the steady state does not lower it
      "5.0, 2,  1, 5.0",
  })
  void aBacklogCountsAsItIs(double little, int waiting, int since, double inSystem) {
    // 10 req/s x TTFT gives Little's count
    CandidateView v = CandidateView.newBuilder().arrivalsPerSecond(10)
        .recentTtftMillis(little * 100).dispatchedSinceSnapshot(since)
        .snapshot(snapshot(waiting)).build();

    assertThat(Externalities.queuedRequests(v)).isEqualTo(waiting + since);
    assertThat(Externalities.requestsInSystem(v, 0)).isCloseTo(inSystem, within(1e-9));
  }

  @Test
  void aPrefixLeavesAHolderWhoseBacklogItsEstimateMisses_andStaysWithOneThatKeepsUp() {
    // "holder" has every block; its queue estimate is 5 ms (prefill work), but its report shows 30
    // requests waiting (its KV is full: they wait for running ones to finish); "spare" holds nothing
    // and has no queue. Prefill: 2 ms overhead + 0.035 ms per uncached token.
    CandidateView holder = CandidateView.newBuilder().replicaId("holder").matched(100, 1_600)
        .prefill(2, 0.035).estimatedQueueMillis(5).snapshot(snapshot(30)).build();
    CandidateView spare = CandidateView.newBuilder().replicaId("spare").prefill(2, 0.035)
        .cache(0, 1_000).snapshot(snapshot(0)).build();
    CandidateView keepingUp = CandidateView.newBuilder().replicaId("holder").matched(100, 1_600)
        .prefill(2, 0.035).estimatedQueueMillis(5).snapshot(snapshot(1)).build();
    HybridCostPolicy policy = policy(HybridCostPolicy.Externality.ALL);

    RoutingDecision behind = policy.route(FixedRoutingContext.of(request, List.of(holder, spare), 1));
    RoutingDecision keeping =
        policy.route(FixedRoutingContext.of(request, List.of(keepingUp, spare), 1));

    // holder: 5 + 2 + 30 x 2 = 67; spare: 2 + 56 = 58 for TTFT, + 0 x 58 for the requests it delays
    // and nothing evicted (room for the 100 new blocks)
    assertThat(behind.score()).hasValueCloseTo(58.0, within(1e-9));
    assertThat(behind.replicaId()).isEqualTo("spare");
    // one waiting: 5 + 2 + 1 x 2 = 9 against 58
    assertThat(keeping.replicaId()).isEqualTo("holder");
    assertThat(keeping.score()).hasValueCloseTo(9.0, within(1e-9));
  }

  private static ReplicaSnapshot snapshot(int waiting) {
    return ReplicaSnapshot.newBuilder().replicaId("r").model("m").waitingRequests(waiting).build();
  }

  @Test
  void queueingSendsARecomputeToTheIdleReplica_notTheBusyOne() {
    // neither holds the prompt; "busy" has the shorter queue now but 8 requests in its prefill system
    // (40/s x 200 ms), "idle" 0.5 (10/s x 50 ms)
    CandidateView busy = CandidateView.newBuilder().replicaId("busy").prefill(20, 0.035)
        .estimatedQueueMillis(10).arrivalsPerSecond(40).recentTtftMillis(200).build();
    CandidateView idle = CandidateView.newBuilder().replicaId("idle").prefill(20, 0.035)
        .estimatedQueueMillis(30).arrivalsPerSecond(10).recentTtftMillis(50).build();
    List<CandidateView> both = List.of(busy, idle);

    RoutingDecision myopic = policy(HybridCostPolicy.Externality.NONE)
        .route(FixedRoutingContext.of(request, both, 1));
    RoutingDecision d = policy(HybridCostPolicy.Externality.ALL)
        .route(FixedRoutingContext.of(request, both, 1));

    assertThat(myopic.replicaId()).as("86 < 106 ms of TTFT").isEqualTo("busy");
    assertThat(d.replicaId()).as("86 + 8 x 76 > 106 + 0.5 x 76").isEqualTo("idle");
    assertThat(d.score()).hasValueCloseTo(106 + 0.5 * 76, within(1e-9));
  }

  @Test
  void hybridRanksWithPollution_butItsDecisionCarriesThePredictedTtftAlone() {
    // "full" holds 60 of the 100 blocks behind 20 ms of queue, and its cache is full: the 40 new
    // blocks evict 40 others (22.4 ms of someone's recompute). "roomy" holds nothing, no queue.
    CandidateView full = CandidateView.newBuilder().replicaId("full").matched(60, 960)
        .cache(1_000, 1_000).prefill(20, 0.035).estimatedQueueMillis(20).build();
    CandidateView roomy = view("roomy", 0, 0, 1_000);
    // TTFT: full = 20 + 20 + 640 x 0.035 = 62.4; roomy = 20 + 1,600 x 0.035 = 76
    HybridCostPolicy polluting = policy(HybridCostPolicy.Externality.NONE);
    HybridCostPolicy aware = policy(HybridCostPolicy.Externality.POLLUTION);

    RoutingDecision myopic = polluting.route(FixedRoutingContext.of(request, List.of(full, roomy), 1));
    RoutingDecision d = aware.route(FixedRoutingContext.of(request, List.of(full, roomy), 1));

    assertThat(myopic.replicaId()).isEqualTo("full");
    assertThat(d.replicaId()).as("62.4 + 22.4 > 76").isEqualTo("roomy");
    assertThat(d.cost().totalMillis()).as("the predicted TTFT, without the externality")
        .isCloseTo(76, within(1e-9));
  }

  /** The ranking with {@code externality}; no {@link HolderStay}, which overrides it for copies. */
  private static HybridCostPolicy policy(HybridCostPolicy.Externality externality) {
    return new HybridCostPolicy(Map.of(), false, externality, true, LoadBound.DEFAULT_FACTOR,
        PastSaturation.DEFAULT_MILLIS, HybridCostPolicy.TIE_ORDER_SECONDS * 1_000, 0);
  }
}
