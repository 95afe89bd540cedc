package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.BreakerState;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Half-open probe places are reserved while a decision is being made, so concurrent decisions cannot
 * send more probes than allowed, and a reservation the decision did not use is given back.
 */
class RouterBreakerProbeTest {
  private final ManualTicker ticker = new ManualTicker();
  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private volatile String forced;
  private final Router router;
  private int requests;

  /** Least estimate, except that request "hold" waits inside the policy until released. */
  private final class HoldingPolicy implements RoutingPolicy {
    private final LeastEstimatePolicy delegate = new LeastEstimatePolicy();

    @Override
    public String name() {
      return "holding";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      if (context.request().id().equals("hold")) {
        entered.countDown();
        try {
          release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (forced != null) {
        return context.candidates().stream().filter(c -> c.replicaId().equals(forced)).findFirst()
            .map(c -> RoutingDecision.routed(c, context.estimate(c))).orElseThrow();
      }
      return delegate.route(context);
    }
  }

  RouterBreakerProbeTest() {
    router = Router.newBuilder().policy(new HoldingPolicy()).ticker(ticker).seed(3)
        .breaker(BreakerConfig.newBuilder().consecutiveFailures(1)
            .openDuration(Duration.ofSeconds(10)).halfOpenProbes(1).build())
        .build();
    router.onSnapshot(queued("r0", 0));
    router.onSnapshot(queued("r1", 500));
    Request failing = request("fail", prompt(64, 1)).build();
    RoutingDecision d = router.route(failing);
    router.onOutcome(outcome(failing, d, OutcomeStatus.REPLICA_ERROR).build());
    assertThat(router.fleet().get("r0").breaker.state()).isEqualTo(BreakerState.OPEN);
    ticker.advanceMillis(10_000);
    router.onSnapshot(queued("r0", 0));
  }

  private String route() {
    return router.route(request("q-" + ++requests, prompt(64, 100 + requests)).build()).replicaId();
  }

  @Test
  void aConcurrentDecisionCannotTakeAProbePlaceAlreadyReserved() throws Exception {
    CompletableFuture<RoutingDecision> held = CompletableFuture.supplyAsync(
        () -> router.route(request("hold", prompt(64, 7)).build()));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

    String concurrent = route();
    release.countDown();
    RoutingDecision first = held.get(10, TimeUnit.SECONDS);

    assertThat(first.replicaId()).as("the held decision probes r0").isEqualTo("r0");
    assertThat(concurrent).as("r0's only probe place was reserved").isEqualTo("r1");
    assertThat(router.fleet().get("r0").breaker.state()).isEqualTo(BreakerState.HALF_OPEN);
  }

  @Test
  void aReservationTheDecisionDidNotUseIsGivenBack() {
    forced = "r1";
    assertThat(route()).isEqualTo("r1");

    forced = null;
    assertThat(route()).as("r0's probe place is free again").isEqualTo("r0");
    assertThat(route()).as("and now taken by that probe").isEqualTo("r1");
  }
}
