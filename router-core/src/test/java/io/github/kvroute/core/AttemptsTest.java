package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;
import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.github.kvroute.api.BreakerState;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Attempts: one is authoritative, closing is atomic for readers, and listeners run outside locks.
 */
class AttemptsTest {
  private final ManualTicker ticker = new ManualTicker();

  @Test
  void routingALaterAttemptEndsTheEarlierOne() {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker).build();
    router.onSnapshot(queued("r1", 0));
    Request first = request("q-1", prompt(1_000, 1)).build();
    RoutingDecision d1 = router.route(first);
    Request second = first.nextAttempt();
    RoutingDecision d2 = router.route(second);

    assertThat(router.stats().inFlight()).isEqualTo(1);
    assertThat(router.stats().orphaned()).isEqualTo(1);
    assertThat(router.replicas().get(0).inFlightRequests()).isEqualTo(1);
    assertThat(router.onOutcome(outcome(first, d1, OutcomeStatus.SUCCESS).build()))
        .isEqualTo(UpdateResult.DUPLICATE);
    assertThat(router.onOutcome(outcome(second, d2, OutcomeStatus.SUCCESS).build()))
        .isEqualTo(UpdateResult.APPLIED);
    assertThat(router.replicas().get(0).inFlightRequests()).isZero();
    RouterStats stats = router.stats();
    assertThat(stats.routed()).isEqualTo(2).isEqualTo(stats.inFlight() + stats.outcomesApplied()
        + stats.expired() + stats.orphaned());
  }

  @Test
  void routingAnEarlierAttemptThanOneInFlightIsRefused() {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker).build();
    router.onSnapshot(queued("r1", 0));
    Request second = request("q-1", prompt(1_000, 1)).attempt(2).build();
    router.route(second);

    assertThatIllegalArgumentException()
        .isThrownBy(() -> router.route(request("q-1", prompt(1_000, 1)).build()))
        .withMessage("request: q-1#1 (expected: a later attempt than q-1#2, which is in flight)");
    assertThat(router.stats().inFlight()).isEqualTo(1);
  }

  @Test
  void anOutcomeForALeaseWhoseExpiryIsDueButNotRunIsADuplicate() {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .leaseTimeout(Duration.ofSeconds(1)).build();
    router.onSnapshot(queued("r1", 0));
    Request r = request("q-1", prompt(1_000, 1)).build();
    RoutingDecision d = router.route(r);
    ticker.advanceMillis(1_001);

    assertThat(router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).build()))
        .isEqualTo(UpdateResult.DUPLICATE);
    assertThat(router.stats().expired()).isEqualTo(1);
    assertThat(router.replicas().get(0).inFlightRequests()).isZero();
  }

  /** Records, for each callback, whether it ran while holding a replica's or a breaker's lock. */
  private static final class LockCheckingListener implements RouterListener {
    Router router;
    final List<String> heldLocks = new CopyOnWriteArrayList<>();
    final List<String> calls = new CopyOnWriteArrayList<>();

    private void check(String call, String replicaId) {
      calls.add(call);
      ReplicaEntry entry = router.fleet().get(replicaId);
      if (entry != null && (Thread.holdsLock(entry) || Thread.holdsLock(entry.breaker))) {
        heldLocks.add(call);
      }
    }

    @Override
    public void onReplicaRestarted(String replicaId, long previousEpoch, long epoch) {
      check("restarted", replicaId);
    }

    @Override
    public void onOrphaned(String replicaId, long epoch, List<RequestRef> attempts) {
      check("orphaned", replicaId);
    }

    @Override
    public void onBreakerStateChanged(
        String replicaId, BreakerState previous, BreakerState current) {
      check("breaker " + current, replicaId);
    }

    @Override
    public void onReplicaStateChanged(
        String replicaId, long epoch, ReplicaState previous, ReplicaState current) {
      check("state " + current, replicaId);
    }
  }

  @Test
  void listenersAreCalledOutsideTheReplicasAndBreakersLocks() {
    LockCheckingListener listener = new LockCheckingListener();
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .listener(listener).build();
    listener.router = router;
    router.onSnapshot(queued("r1", 0));
    router.route(request("open", prompt(100, 99)).build());
    for (int i = 0; i < 10; i++) {
      Request r = request("q-" + i, prompt(100, i)).build();
      router.route(r);
      Request retry = r.nextAttempt();
      RoutingDecision d = router.route(retry);
      if (d.isRouted()) {
        router.onOutcome(outcome(retry, d, OutcomeStatus.REPLICA_ERROR).build());
      }
    }
    router.onSnapshot(ready("r1").epoch(1).build());

    assertThat(listener.calls).contains("breaker OPEN", "orphaned", "restarted", "breaker CLOSED");
    assertThat(listener.heldLocks).isEmpty();
  }
}
