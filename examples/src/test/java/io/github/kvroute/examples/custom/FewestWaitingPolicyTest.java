package io.github.kvroute.examples.custom;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.core.Router;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The custom policy is discovered through ServiceLoader and routes by the waiting queue. */
class FewestWaitingPolicyTest {
  @Test
  void defaultRegistryFindsItByName() {
    RoutingPolicyRegistry registry = RoutingPolicyRegistry.defaultRegistry();
    assertThat(registry.policyNames()).contains("fewest-waiting", "hybrid-cost");
    assertThat(registry.provider("fewest-waiting").orElseThrow())
        .isInstanceOf(FewestWaitingPolicyProvider.class);
    ConfigOrError<RoutingPolicy> p =
        registry.newPolicy("fewest-waiting", Map.of(), PolicyEnvironment.system());
    assertThat(p.value().name()).isEqualTo("fewest-waiting");
  }

  @Test
  void badOptionIsAnErrorValue() {
    ConfigOrError<RoutingPolicy> p = RoutingPolicyRegistry.defaultRegistry().newPolicy(
        "fewest-waiting", Map.of("count_dispatched", "sometimes"), PolicyEnvironment.system());
    assertThat(p.error()).isEqualTo("count_dispatched: sometimes (expected: true or false)");
  }

  @Test
  void routesToTheShortestReportedQueueThroughTheRouter() {
    try (Router router = Router.newBuilder().policy("fewest-waiting").seed(3).build()) {
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("busy").model("m")
          .waitingRequests(12).build());
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("quiet").model("m")
          .waitingRequests(1).build());
      Request r = Request.newBuilder().id("q1").model("m")
          .prompt(PromptKey.ofTokens(new int[64], CacheNamespace.of("m"))).build();
      assertThat(router.route(r).replicaId()).isEqualTo("quiet");
      // the router's own send counts: quiet now has 1 + 1, still fewer than 12
      assertThat(router.route(r.toBuilder().id("q2").build()).replicaId()).isEqualTo("quiet");
    }
  }
}
