package io.github.kvroute.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The thread-safety check of {@link RoutingPolicyContract}: one {@link RouterStress} phase of
 * {@link RouterStress.Config#contract()} size (routing threads reporting outcomes, beside report,
 * KV-event and churn threads, released together), after which every routed attempt has had its outcome
 * and the router's books must balance. Bounded iterations, no sleeps, no wall-clock assertions.
 *
 * <p>Not thread-safe itself: one run per call.
 */
final class ConcurrentChurn {
  private ConcurrentChurn() {}

  static void run(RouterStress.RouterFactory factory, String policy) throws Exception {
    RouterStress.Config config = RouterStress.Config.contract();
    try (RouterStress stress = new RouterStress(config, factory)) {
      RouterStress.Phase phase = stress.runPhase();

      assertTrue(phase.violations().isEmpty(),
          () -> policy + " under concurrent churn: " + String.join("\n", phase.violations()));
      assertEquals((long) config.routingThreads() * config.routesPerThread(),
          phase.stats().decisions(), "every route counted once");
    }
  }
}
