package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** Routers that share a fleet agree where a prefix none of them has placed goes. */
class PrefixHomeTest {
  private final HybridCostPolicy policy =
      new HybridCostPolicy(Map.of(), false, HybridCostPolicy.Externality.POLLUTION, true,
        LoadBound.DEFAULT_FACTOR);

  /** Six cold replicas; router {@code router}'s own recent sends make its queues differ a little. */
  private static List<CandidateView> coldFleet(int router) {
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      views.add(CandidateView.newBuilder().replicaId("replica-" + i).prefill(20, 0.035)
          .estimatedQueueMillis(((i + router) % 6) * 4.0).build());
    }
    return views;
  }

  private String route(Request request, List<CandidateView> views, double peers) {
    RoutingContext context = FixedRoutingContext.withPeerRouters(
        FixedRoutingContext.of(request, views, 1), peers);
    return policy.route(context).replicaId();
  }

  @Property(tries = 50)
  void threeRoutersPlaceANewPrefixOnTheSameReplica(@ForAll @IntRange(min = 1, max = 10_000) int seed) {
    Request request = TestRequests.request(1_600, seed);
    Set<String> chosen = new HashSet<>();
    for (int router = 0; router < 3; router++) {
      chosen.add(route(request, coldFleet(router), 2));
    }
    assertThat(chosen).hasSize(1);
  }

  /**
   * Each router's index shows the copy it made itself: router {@code r} sees the prompt held on
   * replica-{@code r} only, all six replicas idle.
   */
  private static List<CandidateView> ownCopyFleet(int router) {
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      CandidateView.Builder b = CandidateView.newBuilder().replicaId("replica-" + i)
          .prefill(20, 0.035);
      views.add((i == router ? b.matched(100, 1_600) : b).build());
    }
    return views;
  }

  @Property(tries = 50)
  void threeRoutersThatEachMadeTheirOwnCopyConvergeOnOneReplica(
      @ForAll @IntRange(min = 1, max = 10_000) int seed) {
    // a held copy costs 20 ms, a cold replica 20 + 56 = 76, over the limit of 2 x 20 + 10 = 50; but
    // home is credited with the copy the router knows of (the peers send the prefix home), 20 ms,
    // so every router sends it home, whichever copy it made itself
    Request request = TestRequests.request(1_600, seed);
    Set<String> chosen = new HashSet<>();
    for (int router = 0; router < 3; router++) {
      chosen.add(route(request, ownCopyFleet(router), 2));
    }
    assertThat(chosen).hasSize(1);
  }

  /** {@code fleet} as an index that follows KV events shows it: every client's copies. */
  private static List<CandidateView> fromEvents(List<CandidateView> fleet) {
    List<CandidateView> views = new ArrayList<>();
    for (CandidateView v : fleet) {
      views.add(CandidateView.newBuilder().replicaId(v.replicaId()).prefill(20, 0.035)
          .estimatedQueueMillis(v.estimatedQueueMillis()).matched(v.matchedBlocks(), v.matchedTokens())
          .cacheFromEvents(true).build());
    }
    return views;
  }

  private static HybridCostPolicy newRouter() {
    return new HybridCostPolicy(Map.of(), false, HybridCostPolicy.Externality.POLLUTION, true,
        LoadBound.DEFAULT_FACTOR);
  }

  @Property(tries = 30)
  void underKvEventsANewPrefixFollowsTheCopyShown_andHomeEarnsNoCredit(
      @ForAll @IntRange(min = 1, max = 10_000) int seed) {
    // each router's events show one copy, on replica-r: held at 20 ms, a cold home at 76 ms is over
    // 2 x 20 + 10 for a prefix the router has not routed, and is not credited with the copy (the
    // index would show it at home if the peers had put it there)
    Request request = TestRequests.request(1_600, seed);
    for (int router = 0; router < 3; router++) {
      List<CandidateView> views = fromEvents(ownCopyFleet(router));
      assertThat(route(newRouter(), request, views, 2)).isEqualTo("replica-" + router);
      CandidateView cold = views.get((router + 1) % 6);
      assertThat(PrefixHome.peerCopyCreditMillis(request, cold, views.get(router), true, 2)).isZero();
    }
  }

  @Property(tries = 30)
  void routersWhoseEventsShowTwoCopiesAllFollowTheSameOne(
      @ForAll @IntRange(min = 1, max = 10_000) int seed) {
    // replicas 1 and 4 hold the prompt, as every router's KV events show; each router's own sends
    // make a different copy the cheaper, by a few milliseconds: following the cheapest would keep
    // both copies in use, one per router
    Request request = TestRequests.request(1_600, seed);
    Set<String> chosen = new HashSet<>();
    for (int router = 0; router < 3; router++) {
      List<CandidateView> fleet = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        CandidateView.Builder b = CandidateView.newBuilder().replicaId("replica-" + i)
            .estimatedQueueMillis(i == 1 ? 3.0 * router : i == 4 ? 3.0 * (2 - router) : 0);
        fleet.add((i == 1 || i == 4 ? b.matched(100, 1_600) : b).build());
      }
      String replica = route(newRouter(), request, fromEvents(fleet), 2);
      assertThat(replica).isIn("replica-1", "replica-4");
      chosen.add(replica);
    }
    assertThat(chosen).as("one copy for all three routers").hasSize(1);
  }

  @Test
  void underKvEventsARecurringPrefixGoesHomeWithinTheSlack_evenPastACopyElsewhere() {
    // the events show one copy, off home; the prefix is one of many this router routes, so home,
    // cold at 76 ms, is within 5 x 20 + 10: the routers converge on home instead of on whichever
    // copy each made while the others' events were on their way
    Request request = TestRequests.request(1_600, 21);
    HybridCostPolicy router = newRouter();
    String home = route(router, request, fromEvents(fleetWithBusy(null)), 2);
    for (int other = 0; other < 11; other++) {
      route(router, TestRequests.request(1_600, 200 + other), fleetWithBusy(null), 2);
    }
    List<CandidateView> fleet = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String id = "replica-" + i;
      CandidateView.Builder b = CandidateView.newBuilder().replicaId(id);
      boolean copy = !id.equals(home) && fleet.stream().noneMatch(v -> v.matchedBlocks() > 0);
      fleet.add((copy ? b.matched(100, 1_600) : b).build());
    }
    assertThat(route(router, request, fromEvents(fleet), 2)).isEqualTo(home);
  }

  @Test
  void theCreditIsThePrefillAndDisplacedCacheAHomeWouldBeSpared() {
    Request request = TestRequests.request(1_600, 5);
    CandidateView cold = CandidateView.newBuilder().replicaId("a").prefill(20, 0.035)
        .cache(1_000, 1_000).build();
    CandidateView held = CandidateView.newBuilder().replicaId("b").prefill(20, 0.035)
        .matched(100, 1_600).build();
    // 1,600 tokens at 0.035 ms: 56 ms of prefill; two requests behind it: 3 x 56 = 168
    assertThat(PrefixHome.peerCopyCreditMillis(request, cold, held, false, 2))
        .isCloseTo(168, org.assertj.core.data.Offset.offset(1e-9));
    // with pollution: the 100 blocks it would have evicted from its full cache, 56 ms more
    assertThat(PrefixHome.peerCopyCreditMillis(request, cold, held, true, 0))
        .isCloseTo(112, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(PrefixHome.peerCopyCreditMillis(request, held, cold, true, 2)).isZero();
  }

  @Test
  void theSlackIsWideOnlyForARecurringPrefixWithAtMostAReplicasShare() {
    assertThat(PrefixHome.limitMillis(20, 2)).isEqualTo(2 * 20 + 10);
    assertThat(PrefixHome.slack(HomeBook.NOT_SEEN, 6)).isEqualTo(PrefixHome.SPILL_SLACK);
    assertThat(PrefixHome.slack(1.0 / 6, 6)).isEqualTo(PrefixHome.SLACK);
    assertThat(PrefixHome.slack(0.2, 6)).isEqualTo(PrefixHome.SPILL_SLACK);
    assertThat(PrefixHome.slack(0.2, 4)).isEqualTo(PrefixHome.SLACK);
  }

  @Test
  void aRecurringPrefixWaitsAtABusyHome_butANewOneOrOneTooHotForAReplicaLeaves() {
    Request request = TestRequests.request(1_600, 9);
    // six cold replicas, 76 ms each, and home (whichever it is) 90 ms busier: over 2 x 76 + 10 =
    // 162 ms, within 5 x 76 + 10 = 390 ms
    HybridCostPolicy probe = new HybridCostPolicy(Map.of(), false, HybridCostPolicy.Externality.NONE, true,
        LoadBound.DEFAULT_FACTOR);
    String home = route(probe, request, List.copyOf(fleetWithBusy(null)), 2);
    List<CandidateView> busyHome = fleetWithBusy(home);
    HybridCostPolicy router = new HybridCostPolicy(Map.of(), false, HybridCostPolicy.Externality.NONE, true,
        LoadBound.DEFAULT_FACTOR);
    assertThat(route(router, request, busyHome, 2)).as("a new prefix leaves a busy home")
        .isNotEqualTo(home);
    assertThat(route(router, request, busyHome, 2))
        .as("the only prefix this router routes has more than a replica's share: it spills")
        .isNotEqualTo(home);
    for (int other = 0; other < 11; other++) {
      route(router, TestRequests.request(1_600, 100 + other), fleetWithBusy(null), 2);
    }
    // 2 of its 13 requests: a share of 0.15, under one replica's 1/6
    assertThat(route(router, request, busyHome, 2)).as("one prefix among many waits at home")
        .isEqualTo(home);
  }

  /** Six idle cold replicas; {@code busy} (if any) has 90 ms of queue more. */
  private static List<CandidateView> fleetWithBusy(String busy) {
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String id = "replica-" + i;
      views.add(CandidateView.newBuilder().replicaId(id).prefill(20, 0.035)
          .estimatedQueueMillis(id.equals(busy) ? 90 : 0).build());
    }
    return views;
  }

  private static String route(HybridCostPolicy p, Request request, List<CandidateView> views,
      double peers) {
    RoutingContext context = FixedRoutingContext.withPeerRouters(
        FixedRoutingContext.of(request, views, 1), peers);
    return p.route(context).replicaId();
  }

  @Test
  void aLoneRouterTakesItsCheapestReplica() {
    // without peers: the least queue; with them, the home may be any replica within the slack
    Set<String> alone = new HashSet<>();
    for (int router = 0; router < 3; router++) {
      alone.add(route(TestRequests.request(1_600, 7), coldFleet(router), 0));
    }
    assertThat(alone).as("each router's own cheapest").hasSize(3);
  }

  @Test
  void theHomeIsNeverDearerThanItsLimit_andAHeldPrefixWinsWhenHomeIsBusy() {
    Request request = TestRequests.request(1_600, 3);
    // a 100-block prompt: cold replicas cost 20 + 56 = 76 ms plus queue; all but one far too busy
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      views.add(CandidateView.newBuilder().replicaId("replica-" + i).prefill(20, 0.035)
          .estimatedQueueMillis(i == 0 ? 0 : 1_000).build());
    }
    assertThat(route(request, views, 2)).as("only replica-0 is within 2 x 76 + 10 ms")
        .isEqualTo("replica-0");

    views.set(0, CandidateView.newBuilder().replicaId("replica-0").prefill(20, 0.035)
        .estimatedQueueMillis(1_000).build());
    views.set(4, CandidateView.newBuilder().replicaId("replica-4").prefill(20, 0.035)
        .matched(100, 1_600).estimatedQueueMillis(10).build());
    // held on replica-4 at 10 + 20 = 30 ms: home, even credited with that copy, waits 1,000 ms
    assertThat(route(request, views, 2)).as("a held copy far cheaper than a busy home wins")
        .isEqualTo("replica-4");
  }

  @Test
  void ranksAreStablePerReplicaAndSpreadOverKeys() {
    Set<String> firsts = new HashSet<>();
    for (long key = 0; key < 200; key++) {
      String first = null;
      long best = Long.MIN_VALUE;
      for (int i = 0; i < 6; i++) {
        long rank = PrefixHome.rank(key, "replica-" + i);
        assertThat(rank).isEqualTo(PrefixHome.rank(key, "replica-" + i));
        if (rank > best) {
          best = rank;
          first = "replica-" + i;
        }
      }
      firsts.add(first);
    }
    assertThat(firsts).as("every replica is some prefix's home").hasSize(6);
  }
}
