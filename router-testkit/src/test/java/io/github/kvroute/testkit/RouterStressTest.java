package io.github.kvroute.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The CI-sized {@link RouterStress}: a few seconds of concurrent routing, reports, KV events and churn,
 * then the books must balance at quiescence. {@code scripts/soak.sh} runs the same stress for minutes.
 */
class RouterStressTest {

  @Test
  void booksBalanceAtQuiescenceAfterEveryPhase() throws InterruptedException {
    try (RouterStress stress = new RouterStress(RouterStress.Config.bounded(),
        b -> b.policy(new LeastEstimate()))) {
      for (int i = 0; i < 2; i++) {
        RouterStress.Phase phase = stress.runPhase();

        assertThat(phase.violations()).as("phase %d", phase.number()).isEmpty();
        assertThat(phase.offered()).isEqualTo(4L * 1_500 * phase.number());
        assertThat(phase.routed()).as("some requests routed").isPositive();
        assertThat(phase.stats().expired() + phase.stats().orphaned())
            .as("leases ended by expiry or orphaning, racing outcomes").isPositive();
        assertThat(phase.kvEventKeys()).as("KV events applied").isPositive();
      }
    }
  }

  @Test
  void aRouterThatLeaksALeaseIsCaught() throws InterruptedException {
    // A host that drops one outcome: the stress must see the attempt still in flight (no churn and a
    // long lease, so nothing orphans or expires it).
    RouterStress.Config quiet = new RouterStress.Config(1, 3, 200, 100, 50, 0, 40, 64, false,
        256 << 10, Duration.ofMinutes(10), 1);
    try (RouterStress stress = new RouterStress(quiet, b -> b.policy(new LeastEstimate()))) {
      stress.runPhase();
      var request = Request.newBuilder().id("leaked").model(KvrouteArbitraries.MODEL)
          .prompt(PromptKey.unhashed(100)).build();
      RoutingDecision d = stress.router().route(request);
      assertThat(d.isRouted()).as("%s", d).isTrue();

      RouterStress.Phase next = stress.runPhase();

      assertThat(next.violations())
          .anyMatch(v -> v.startsWith("stats().routed() = routed as the host saw it"))
          .anyMatch(v -> v.startsWith("stats().inFlight() with every attempt closed: 1 "))
          .anyMatch(v -> v.startsWith(d.replicaId() + " inFlightRequests with every attempt closed: 1 "));
    }
  }
}
