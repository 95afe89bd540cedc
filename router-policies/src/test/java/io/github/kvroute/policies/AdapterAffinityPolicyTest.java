package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.Router;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** LoRA affinity as a filter in front of any registered policy. */
class AdapterAffinityPolicyTest {
  private static final RoutingPolicy POLICY = Policies.create("adapter-affinity");

  @Test
  void narrowsToResidentReplicasWhenAnyHoldTheAdapter() {
    Request r = TestRequests.request(64, 1, "sql");
    List<CandidateView> c = List.of(view("a", 0, Set.of()), view("b", 5, Set.of("sql")),
        view("c", 9, Set.of("sql", "chat")), view("d", 1, Set.of("chat")));
    assertThat(POLICY.route(FixedRoutingContext.of(r, c, 1)).replicaId()).isEqualTo("b");
    // nobody holds it: every candidate would load it, the delegate sees them all
    Request other = TestRequests.request(64, 1, "rare");
    assertThat(POLICY.route(FixedRoutingContext.of(other, c, 1)).replicaId()).isEqualTo("a");
    // no adapter: unchanged
    assertThat(POLICY.route(FixedRoutingContext.of(TestRequests.request(64, 1), c, 1)).replicaId())
        .isEqualTo("a");
    assertThat(AdapterAffinityPolicy.resident(c, "rare")).isSameAs(c);
    assertThat(AdapterAffinityPolicy.resident(c, "sql")).extracting(CandidateView::replicaId)
        .containsExactly("b", "c");
  }

  @Test
  void throughTheRouterWithAnotherDelegate() {
    String model = "m";
    try (Router router = Router.newBuilder()
        .policy("adapter-affinity", Map.of("delegate", "least-outstanding-tokens")).seed(1)
        .ticker(() -> 0L).build()) {
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("idle").model(model)
          .queuedPrefillTokens(0).build());
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("warm").model(model)
          .queuedPrefillTokens(5_000).residentAdapters(Set.of("sql")).build());
      Request r = Request.newBuilder().id("q").model(model).adapter("sql")
          .prompt(PromptKey.ofTokens(TestRequests.tokens(64, 2), CacheNamespace.of(model, null, "sql")))
          .build();
      RoutingDecision d = router.route(r);
      assertThat(d.replicaId()).isEqualTo("warm");
      assertThat(router.stats().pluginFailures()).isZero();
    }
  }

  private static CandidateView view(String id, int inFlight, Set<String> adapters) {
    ReplicaSnapshot s = ReplicaSnapshot.newBuilder().replicaId(id).model("model")
        .residentAdapters(adapters).build();
    return CandidateView.newBuilder().replicaId(id).snapshot(s).inFlight(inFlight, 0).build();
  }
}
