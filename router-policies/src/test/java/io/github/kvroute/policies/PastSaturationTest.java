package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Priority;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * Past saturation a router alone piles a request without a deadline onto the deepest holder that
 * waits longest (once the pile lasts, onto the longest wait), and routers that share the fleet
 * onto the one sink they agree on ({@link PastSaturation}); below it, or with a deadline in sight,
 * the ranking chooses.
 */
class PastSaturationTest {
  private static final int PROMPT = 1_600;
  private static final long SECOND = 1_000_000_000L;

  private static CandidateView view(String id, double queueMillis, int matchedBlocks) {
    return view(id, queueMillis, matchedBlocks, 0);
  }

  private static CandidateView view(String id, double queueMillis, int matchedBlocks,
      double meanRequestCostMillis) {
    return CandidateView.newBuilder().replicaId(id).prefill(20, 0.035).cache(0, 1_000_000)
        .estimatedQueueMillis(queueMillis).inFlight(1, 1_000)
        .matched(matchedBlocks, matchedBlocks * 16).meanRequestCostMillis(meanRequestCostMillis)
        .build();
  }

  /** Every replica waits over 300 ms; replica-1 and replica-2 hold 50 blocks, replica-2 waits longer. */
  private static List<CandidateView> backlogged() {
    return List.of(view("replica-0", 900, 0), view("replica-1", 400, 50),
        view("replica-2", 700, 50), view("replica-3", 2_000, 10));
  }

  private static RoutingContext context(Request request, List<CandidateView> fleet, long now) {
    return FixedRoutingContext.of(request, fleet, RandomSource.seeded(1), now, CostModel.defaults());
  }

  private static final long START = PastSaturation.START_MILLIS * 1_000_000L;
  private static final long STOP = PastSaturation.STOP_MILLIS * 1_000_000L;

  /** The pick once {@code fleet} has been seen for the start, from {@code start}. */
  private static int pickAfterStart(PastSaturation rule, Request request, List<CandidateView> fleet,
      long start) {
    rule.pick(context(request, fleet, start), false, false);
    return rule.pick(context(request, fleet, start + START), false, false);
  }

  private static Request withBudget(int seed) {
    return TestRequests.request(PROMPT, seed).toBuilder().ttftBudget(Duration.ofSeconds(1)).build();
  }

  @Test
  void pastSaturationTheDeepestHolderThatWaitsLongestTakesTheRequest() {
    PastSaturation rule = new PastSaturation(300);
    assertThat(pickAfterStart(rule, TestRequests.request(PROMPT, 1), backlogged(), 0))
        .isEqualTo(2);
  }

  @Test
  void theRuleStartsAfterALastingBacklogAndStopsAfterALastingAbsence() {
    PastSaturation rule = new PastSaturation(300);
    Request request = TestRequests.request(PROMPT, 1);
    List<CandidateView> idle = new ArrayList<>(backlogged());
    idle.set(0, view("replica-0", 0, 0));
    assertThat(rule.pick(context(request, backlogged(), 0), false, false)).as("a burst")
        .isEqualTo(-1);
    assertThat(rule.pick(context(request, backlogged(), START - 1), false, false)).isEqualTo(-1);
    assertThat(rule.pick(context(request, backlogged(), START), false, false)).as("started")
        .isEqualTo(2);
    assertThat(rule.pick(context(request, idle, START + 1), false, false))
        .as("a replica free: the ranking's").isEqualTo(-1);
    assertThat(rule.pick(context(request, backlogged(), START + STOP), false, false))
        .as("after a gap shorter than the stop: still running").isEqualTo(2);
    assertThat(rule.pick(context(request, idle, START + STOP + 1), false, false)).isEqualTo(-1);
    assertThat(rule.pick(context(request, idle, START + 2 * STOP + 1), false, false))
        .isEqualTo(-1);
    assertThat(rule.pick(context(request, backlogged(), START + 2 * STOP + 2), false, false))
        .as("stopped: the backlog must last the start again").isEqualTo(-1);
    assertThat(rule.pick(context(request, backlogged(), 2 * START + 2 * STOP + 2), false, false))
        .isEqualTo(2);
  }

  @Test
  void aPileThatLastsGoesToTheLongestWaitWhateverItHolds() {
    PastSaturation rule = new PastSaturation(300);
    Request request = TestRequests.request(PROMPT, 1);
    long lasting = PastSaturation.LASTING_MILLIS * 1_000_000L;
    assertThat(pickAfterStart(rule, request, backlogged(), 0)).as("started: the deepest holder")
        .isEqualTo(2);
    assertThat(rule.pick(context(request, backlogged(), START + lasting - 1), false, false))
        .as("just under the lasting time").isEqualTo(2);
    assertThat(rule.pick(context(request, backlogged(), START + lasting), false, false))
        .as("lasting: replica-3 waits longest, though it holds less").isEqualTo(3);
    List<CandidateView> idle = new ArrayList<>(backlogged());
    idle.set(0, view("replica-0", 0, 0));
    long stopped = START + lasting + STOP + 1;
    rule.pick(context(request, idle, START + lasting + 1), false, false);
    assertThat(rule.pick(context(request, idle, stopped), false, false)).isEqualTo(-1);
    assertThat(pickAfterStart(rule, request, backlogged(), stopped + 1))
        .as("a new pile starts with the deepest holder again").isEqualTo(2);
  }

  @Test
  void aPromptHeldNowhereGoesToTheLongestWait() {
    PastSaturation rule = new PastSaturation(300);
    List<CandidateView> fleet = List.of(view("replica-0", 900, 0), view("replica-1", 400, 0),
        view("replica-2", 2_500, 0));
    assertThat(pickAfterStart(rule, TestRequests.request(PROMPT, 1), fleet, 0)).isEqualTo(2);
  }

  @Test
  void oneReplicaAtOrUnderTheThresholdLeavesTheRequestToTheRanking() {
    PastSaturation rule = new PastSaturation(300);
    List<CandidateView> fleet = new ArrayList<>(backlogged());
    fleet.set(0, view("replica-0", 300, 0));
    assertThat(pickAfterStart(rule, TestRequests.request(PROMPT, 1), fleet, 0)).isEqualTo(-1);
  }

  @Test
  void aloneAWaitUnderTheMeanRequestsPrefillIsNoBacklog() {
    PastSaturation rule = new PastSaturation(300);
    Request request = TestRequests.request(PROMPT, 1);
    // every wait is over 300 ms, but replica-1's 400 ms is under the mean request's 500 ms
    List<CandidateView> longPrompts = List.of(view("replica-0", 900, 0, 500),
        view("replica-1", 400, 50, 500), view("replica-2", 700, 50, 500),
        view("replica-3", 2_000, 10, 500));
    assertThat(pickAfterStart(rule, request, longPrompts, 0)).as("one request's wait")
        .isEqualTo(-1);
    List<CandidateView> backlog = new ArrayList<>(longPrompts);
    backlog.set(1, view("replica-1", 501, 50, 500));
    assertThat(rule.pick(context(request, backlog, START + 1), false, false))
        .as("every wait past the mean: the backlog must still last the start").isEqualTo(-1);
    assertThat(rule.pick(context(request, backlog, 2 * START + 1), false, false)).isEqualTo(2);
    assertThat(rule.pick(context(request, longPrompts, 2 * START + 2), false, false))
        .as("replica-1 under the mean again: the ranking's").isEqualTo(-1);
  }

  @Test
  void withPeersTheMeanRequestsPrefillDoesNotRaiseTheThreshold() {
    PastSaturation rule = new PastSaturation(300);
    Request request = TestRequests.request(PROMPT, 1);
    List<CandidateView> longPrompts = List.of(view("replica-0", 900, 0, 500),
        view("replica-1", 400, 50, 500), view("replica-2", 700, 50, 500));
    long peerStart = PastSaturation.PEER_START_MILLIS * 1_000_000L;
    rule.pick(context(request, longPrompts, 0), false, true);
    assertThat(rule.pick(context(request, longPrompts, peerStart), false, true))
        .as("every wait over 300 ms for the peers' start: the sink takes it").isNotNegative();
  }

  @Test
  void staleCandidatesDoNotCountWhenOnlyFreshOnesMayBeChosen() {
    PastSaturation rule = new PastSaturation(300);
    List<CandidateView> fleet = new ArrayList<>(backlogged());
    fleet.set(0, CandidateView.newBuilder().replicaId("replica-0").prefill(20, 0.035)
        .cache(0, 1_000_000).estimatedQueueMillis(0).telemetryStale(true).build());
    Request request = TestRequests.request(PROMPT, 1);
    rule.pick(context(request, fleet, 0), true, false);
    assertThat(rule.pick(context(request, fleet, START), true, false))
        .as("the idle replica is stale and excluded").isEqualTo(2);
    assertThat(rule.pick(context(request, fleet, START + 1), false, false))
        .as("kept, the idle replica is a choice: not saturated").isEqualTo(-1);
  }

  @Test
  void aRequestWithABudgetIsLeftToAdmissionAndKeepsTheRuleOffForAMinute() {
    PastSaturation rule = new PastSaturation(300);
    assertThat(rule.pick(context(withBudget(1), backlogged(), 10 * SECOND), false, false))
        .isEqualTo(-1);
    Request plain = TestRequests.request(PROMPT, 2);
    assertThat(pickAfterStart(rule, plain, backlogged(), 69 * SECOND - START))
        .as("59 s after a budget").isEqualTo(-1);
    assertThat(pickAfterStart(rule, plain, backlogged(), 70 * SECOND))
        .as("60 s after, and the start after that").isEqualTo(2);
  }

  @Test
  void anInteractiveRequestIsNeverPiled() {
    PastSaturation rule = new PastSaturation(300);
    Request interactive = TestRequests.request(PROMPT, 7).toBuilder()
        .priority(Priority.INTERACTIVE).build();
    assertThat(pickAfterStart(rule, interactive, backlogged(), 0)).isEqualTo(-1);
    Request batch = TestRequests.request(PROMPT, 8).toBuilder().priority(Priority.BATCH).build();
    assertThat(rule.pick(context(batch, backlogged(), START + 1), false, false))
        .as("the backlog it saw counts for the others").isEqualTo(2);
  }

  @Test
  void zeroTurnsTheRuleOff() {
    PastSaturation rule = new PastSaturation(0);
    assertThat(pickAfterStart(rule, TestRequests.request(PROMPT, 1), backlogged(), 0))
        .isEqualTo(-1);
  }

  private static final long PEER_START = PastSaturation.PEER_START_MILLIS * 1_000_000L;

  /** The candidate ranked first for {@link PastSaturation#SINK_KEY} among {@code fleet}. */
  private static String sink(List<CandidateView> fleet) {
    return fleet.stream().max((a, b) -> Long.compare(
        PrefixHome.rank(PastSaturation.SINK_KEY, a.replicaId()),
        PrefixHome.rank(PastSaturation.SINK_KEY, b.replicaId()))).orElseThrow().replicaId();
  }

  @Test
  void withPeersEveryRouterPilesOntoTheSameSinkWhateverItsOrderOfCandidates() {
    List<CandidateView> fleet = backlogged();
    List<CandidateView> reversed = new ArrayList<>(fleet);
    java.util.Collections.reverse(reversed);
    Request request = TestRequests.request(PROMPT, 1);
    PastSaturation first = new PastSaturation(300);
    PastSaturation second = new PastSaturation(300);
    first.pick(context(request, fleet, 0), false, true);
    second.pick(context(request, reversed, 0), false, true);
    int a = first.pick(context(request, fleet, PEER_START), false, true);
    int b = second.pick(context(request, reversed, PEER_START), false, true);
    assertThat(fleet.get(a).replicaId()).isEqualTo(reversed.get(b).replicaId())
        .isEqualTo(sink(fleet));
  }

  @Test
  void withPeersTheBacklogMustLastLongerAndThePileGoesOnWhileEveryWaitPassesTheOpenThreshold() {
    PastSaturation rule = new PastSaturation(300);
    Request request = TestRequests.request(PROMPT, 1);
    // every replica over the open threshold, one under the threshold: no start
    List<CandidateView> draining = new ArrayList<>(backlogged());
    draining.set(1, view("replica-1", PastSaturation.PEER_OPEN_MILLIS + 20, 50));
    List<CandidateView> open = new ArrayList<>(backlogged());
    open.set(1, view("replica-1", PastSaturation.PEER_OPEN_MILLIS, 50));
    int sink = Integer.parseInt(sink(backlogged()).substring("replica-".length()));
    assertThat(rule.pick(context(request, draining, 0), false, true)).isEqualTo(-1);
    assertThat(rule.pick(context(request, draining, 2 * PEER_START), false, true))
        .as("a replica under the threshold: never starts").isEqualTo(-1);
    assertThat(rule.pick(context(request, backlogged(), 2 * PEER_START + 1), false, true))
        .isEqualTo(-1);
    assertThat(rule.pick(context(request, backlogged(), 2 * PEER_START + START + 1), false, true))
        .as("alone it would have started; with peers the backlog must last longer")
        .isEqualTo(-1);
    assertThat(rule.pick(context(request, backlogged(), 3 * PEER_START + 1), false, true))
        .as("started").isEqualTo(sink);
    assertThat(rule.pick(context(request, draining, 3 * PEER_START + 2), false, true))
        .as("running: every wait over the open threshold").isEqualTo(sink);
    assertThat(rule.pick(context(request, open, 3 * PEER_START + 3), false, true))
        .as("one at the open threshold: the ranking's").isEqualTo(-1);
    assertThat(rule.pick(context(request, draining, 3 * PEER_START + 4), false, true))
        .as("a gap shorter than the stop").isEqualTo(sink);
  }

  @Test
  void throughHybridCostAloneTheDeepestLongestWaitWithPeersTheSink() {
    HybridCostPolicy policy = new HybridCostPolicy(Map.of(), false,
        HybridCostPolicy.Externality.ALL, true, 0, 300);
    Request request = TestRequests.request(PROMPT, 3);
    assertThat(policy.route(context(request, backlogged(), 0)).replicaId())
        .as("alone, a burst: the least predicted TTFT").isEqualTo("replica-1");
    assertThat(policy.route(context(request, backlogged(), START)).replicaId())
        .as("alone, past saturation for the start").isEqualTo("replica-2");
    HybridCostPolicy off = new HybridCostPolicy(Map.of(), false,
        HybridCostPolicy.Externality.ALL, true, 0, 0);
    assertThat(off.route(context(request, backlogged(), 0)).replicaId())
        .as("the rule off: the least predicted TTFT").isEqualTo("replica-1");
    // with peers: a prompt whose home (with the rule off) is not the sink goes to the sink
    HybridCostPolicy withRule = new HybridCostPolicy(Map.of(), false,
        HybridCostPolicy.Externality.ALL, true, 0, 300);
    String sink = sink(backlogged());
    Request far = null;
    for (int seed = 5; seed < 60 && far == null; seed++) {
      Request r = TestRequests.request(PROMPT, seed);
      RoutingContext withPeers = FixedRoutingContext.withPeerRouters(context(r, backlogged(), 0), 2);
      if (!off.route(withPeers).replicaId().equals(sink)) {
        far = r;
      }
    }
    assertThat(far).as("a prompt routed elsewhere than the sink").isNotNull();
    RoutingContext early = FixedRoutingContext.withPeerRouters(context(far, backlogged(), 0), 2);
    assertThat(withRule.route(early).replicaId()).as("with peers, not started yet")
        .isEqualTo(off.route(early).replicaId());
    RoutingContext late = FixedRoutingContext.withPeerRouters(
        context(far, backlogged(), PEER_START), 2);
    assertThat(withRule.route(late).replicaId()).as("with peers, past saturation").isEqualTo(sink);
  }

  @Test
  void decisionsRacingOnOneRulePickOnlyTheDeepestOrTheLongestWaitAndOnlyPastTheThreshold()
      throws Exception {
    PastSaturation rule = new PastSaturation(300);
    List<CandidateView> idle = new ArrayList<>(backlogged());
    idle.set(0, view("replica-0", 0, 0));
    Request request = TestRequests.request(PROMPT, 6);
    AtomicInteger wrong = new AtomicInteger();
    AtomicInteger piled = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        runs.add(pool.submit(() -> {
          for (int i = 0; i < 20_000; i++) {
            // alternating phases of five starts each, time rising with i in every thread
            boolean busy = i / 50 % 2 == 0;
            int pick = rule.pick(
                context(request, busy ? backlogged() : idle, i * (START / 10)), false, false);
            if (pick == 2 || pick == 3) {
              piled.incrementAndGet();
            }
            // 2 holds most and waits longest among those, 3 waits longest (once the pile lasts)
            if (pick != -1 && (pick != 2 && pick != 3 || !busy)) {
              wrong.incrementAndGet();
            }
          }
        }));
      }
      for (Future<?> run : runs) {
        run.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(wrong.get()).isZero();
    assertThat(piled.get()).as("the rule ran in the backlogged phases").isPositive();
  }

  /**
   * Once a fleet has been seen for the start: whenever the rule picks, every candidate waits over
   * the threshold, the pick matches
   * at least as deep as any of them, and no equally deep one waits longer; whenever it does not, a
   * candidate waits at most the threshold.
   */
  @Property
  void thePickIsTheDeepestLongestWaitAndOnlyPastTheThreshold(
      @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 0, max = 3_000) Integer> waits,
      @ForAll @Size(min = 8, max = 8) List<@IntRange(min = 0, max = 3) Integer> depths,
      @ForAll @DoubleRange(min = 1, max = 2_000) double threshold) {
    List<CandidateView> fleet = new ArrayList<>();
    for (int i = 0; i < waits.size(); i++) {
      fleet.add(view("replica-" + i, waits.get(i), depths.get(i) * 10));
    }
    int pick = pickAfterStart(new PastSaturation(threshold), TestRequests.request(PROMPT, 4), fleet,
        0);
    boolean saturated = fleet.stream().allMatch(c -> c.calibratedQueueMillis() > threshold);
    assertThat(pick >= 0).isEqualTo(saturated);
    if (pick >= 0) {
      CandidateView p = fleet.get(pick);
      for (CandidateView c : fleet) {
        assertThat(c.matchedBlocks()).isLessThanOrEqualTo(p.matchedBlocks());
        if (c.matchedBlocks() == p.matchedBlocks()) {
          assertThat(c.calibratedQueueMillis()).isLessThanOrEqualTo(p.calibratedQueueMillis());
        }
      }
    }
  }
}
