package io.github.kvroute.policies;

import io.github.kvroute.api.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.core.Router;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** round-robin: the next eligible replica in turn, through a real router. */
class RoundRobinPolicyTest {
  private static final String MODEL = "m";

  private final ManualTicker ticker = new ManualTicker();
  private final Router router = Router.newBuilder()
      .registry(RoutingPolicyRegistry.load(getClass().getClassLoader())).policy("round-robin")
      .ticker(ticker).seed(1).build();
  private int requests;

  private static ReplicaSnapshot.Builder ready(String id) {
    return ReplicaSnapshot.newBuilder().replicaId(id).model(MODEL);
  }

  private RoutingDecision route(int tokens) {
    int[] t = new int[tokens];
    for (int i = 0; i < tokens; i++) {
      t[i] = i;
    }
    return router.route(Request.newBuilder().id("q-" + ++requests).model(MODEL)
        .prompt(PromptKey.ofTokens(t, CacheNamespace.of(MODEL))).build());
  }

  private List<String> next(int n) {
    List<String> order = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      order.add(route(100).replicaId());
    }
    return order;
  }

  @Test
  void cyclesThroughTheCandidatesInOrder() {
    router.onSnapshot(ready("c").build());
    router.onSnapshot(ready("a").build());
    router.onSnapshot(ready("b").build());

    assertThat(next(7)).containsExactly("a", "b", "c", "a", "b", "c", "a");
  }

  @Test
  void ineligibleReplicasAreSkipped() {
    router.onSnapshot(ready("a").build());
    router.onSnapshot(ready("b").state(ReplicaState.DRAINING).build());
    router.onSnapshot(ready("c").build());

    assertThat(next(4)).containsExactly("a", "c", "a", "c");
  }

  @Test
  void emptyFleetIsNoCandidates() {
    RoutingDecision d = route(100);

    assertThat(d.isRouted()).isFalse();
    assertThat(d.reason()).isEqualTo(RejectReason.NO_CANDIDATES);
  }

  /** Round-robin sends one of two identical prompts behind a queued 40,000-token one: 1,475 ms. */
  @Test
  void balancesCountsNotCost_theRoundRobinExample() {
    router.onSnapshot(ready("busy").waitingRequests(1).queuedPrefillTokens(40_000).build());
    router.onSnapshot(ready("idle").waitingRequests(0).queuedPrefillTokens(0).build());

    RoutingDecision first = route(1_000);
    RoutingDecision second = route(1_000);

    assertThat(first.replicaId()).isEqualTo("busy");
    assertThat(first.cost().totalMillis()).as("filled in by the router")
        .isCloseTo(1_420 + 55, within(1e-9));
    assertThat(second.replicaId()).isEqualTo("idle");
    assertThat(second.cost().totalMillis()).isCloseTo(55, within(1e-9));
  }
}
