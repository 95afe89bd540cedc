package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import io.github.kvroute.core.Router;
import io.github.kvroute.testkit.KvrouteArbitraries;
import io.github.kvroute.testkit.RouterScript;
import java.util.List;
import java.util.function.Supplier;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

/**
 * Explaining changes nothing a decision depends on: a router that explains a request after every
 * step of a workload makes exactly the decisions, and ends with exactly the stats, of an identical
 * fresh router that never explains. Over the policies whose state, if any, learns from decisions
 * only (hybrid-cost's reuse share and book of homes skip explanations; round-robin counts an
 * explanation as a call, see {@code Router.explain}), including the randomised ones: an explanation
 * draws on its own randomness, never the router's.
 */
class ExplainProperties {

  @Provide
  Arbitrary<String> statelessPolicies() {
    return Arbitraries.of("hybrid-cost", "least-request", "power-of-two", "cache-aware",
        "kv-overlap", "least-kv", "random");
  }

  @Property(tries = 200)
  void explainThenRouteChoosesAsRouteAlone(
      @ForAll("statelessPolicies") String policy,
      @ForAll("scripts") RouterScript script,
      @ForAll("probes") Request probe) {
    explainingChangesNothing(() -> Router.newBuilder().policy(policy), script, probe);
  }

  /** The same with other routers on the fleet, where hybrid-cost books its prefixes' homes. */
  @Property(tries = 100)
  void explainThenRouteChoosesAsRouteAloneWithPeers(
      @ForAll("scripts") RouterScript script,
      @ForAll("probes") Request probe) {
    explainingChangesNothing(() -> Router.newBuilder().policy("hybrid-cost").peerRouters(2),
        script, probe);
  }

  /**
   * Plays {@code script} on two routers from {@code builders}, one of which explains
   * {@code probe} after every report and the request and {@code probe} after every decision:
   * their decisions, stats and a last decision for {@code probe} must be equal.
   */
  private static void explainingChangesNothing(Supplier<Router.Builder> builders,
      RouterScript script, Request probe) {
    ManualTicker plainTicker = new ManualTicker();
    ManualTicker explainingTicker = new ManualTicker();
    try (Router plain = builders.get().ticker(plainTicker).seed(5).build();
        Router explaining = builders.get().ticker(explainingTicker).seed(5).build()) {
      List<RoutingDecision> expected = script.playOn(plain, plainTicker);

      List<RoutingDecision> actual = script.playOn(explaining, explainingTicker,
          new RouterScript.Observer() {
            @Override
            public void reported(ReplicaSnapshot snapshot, UpdateResult result) {
              explaining.explain(probe);
            }

            @Override
            public void routed(Request request, RoutingDecision decision) {
              explaining.explain(request);
              explaining.explain(probe);
            }
          });

      assertThat(actual).isEqualTo(expected);
      assertThat(explaining.stats()).isEqualTo(plain.stats());
      assertThat(explaining.route(probe)).isEqualTo(plain.route(probe));
    }
  }

  @Provide
  Arbitrary<RouterScript> scripts() {
    return KvrouteArbitraries.routerScripts();
  }

  @Provide
  Arbitrary<Request> probes() {
    return KvrouteArbitraries.requests().map(r -> r);
  }
}
