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
      new HybridCostPolicy(Map.of(), false, HybridCostPolicy.Externality.POLLUTION);

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
  void theHomeIsNeverDearerThanItsLimit_andAHeldPrefixWinsAsBefore() {
    Request request = TestRequests.request(1_600, 3);
    // a 100-block prompt: cold replicas cost 20 + 56 = 76 ms plus queue; one far too busy
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      views.add(CandidateView.newBuilder().replicaId("replica-" + i).prefill(20, 0.035)
          .estimatedQueueMillis(i == 0 ? 0 : 1_000).build());
    }
    assertThat(route(request, views, 2)).as("only replica-0 is within 1.5 x 76 + 10 ms")
        .isEqualTo("replica-0");

    views.set(4, CandidateView.newBuilder().replicaId("replica-4").prefill(20, 0.035)
        .matched(100, 1_600).estimatedQueueMillis(10).build());
    assertThat(route(request, views, 2)).as("held: no agreement needed").isEqualTo("replica-4");
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
