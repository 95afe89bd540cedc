package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A lease that ends before its books are written must not leave them written for good. */
class LedgerLeakTest {

  /** Moves 2 ms forward on every read: the lease expires between the routing steps. */
  private static Ticker racing() {
    AtomicLong nanos = new AtomicLong();
    return () -> nanos.addAndGet(2_000_000L);
  }

  @Test
  void aLeaseExpiredBeforeItsDispatchLeavesNoBooks() {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(racing())
        .leaseTimeout(Duration.ofMillis(1)).build();
    router.onSnapshot(queued("r1", 0));

    RoutingDecision d = router.route(request("q-1", prompt(64, 1)).build());

    assertThat(d.isRouted()).isTrue();
    assertThat(router.stats().inFlight()).isZero();
    assertThat(router.replicas().get(0).inFlightRequests()).isZero();
    assertThat(router.replicas().get(0).inFlightTokens()).isZero();
  }

  @Test
  void releaseBeforeDispatchMakesTheDispatchANoOp() {
    DispatchLedger ledger = new DispatchLedger();
    Lease lease = new Lease(new io.github.kvroute.api.RequestRef("q", 1), null, 0, null, 0, 100, 10,
        0, 5, 5, 0, Double.NaN);

    ledger.release(lease);
    ledger.dispatch(lease);

    LedgerReading r = new LedgerReading();
    ledger.read(0, r);
    assertThat(r.inFlightRequests).isZero();
    assertThat(r.inFlightTokens).isZero();
    assertThat(r.sinceCount).isZero();
    assertThat(r.queueMillis).isZero();
  }

  @Test
  void decodeReleasedBeforeItsHoldLeavesNoBooks() {
    DispatchLedger ledger = new DispatchLedger();
    Lease lease = new Lease(new io.github.kvroute.api.RequestRef("q", 1), null, 0, null, 0, 100, 10,
        0, 5, 5, 0, Double.NaN);

    ledger.releaseDecode(lease);
    assertThat(ledger.inFlightRequests()).isZero();
    ledger.holdDecode(lease);

    assertThat(ledger.inFlightRequests()).isZero();
  }

  @Test
  void anAttemptRoutedWhileItsReplicaRestartsIsOrphanedNotLeaked() {
    RecordingListener listener = new RecordingListener();
    Router[] router = new Router[1];
    // the restart lands while the policy decides: after the old process's attempts were orphaned,
    // before this attempt is recorded
    RoutingPolicy restartingMidRoute = new RoutingPolicy() {
      @Override
      public String name() {
        return "restarting";
      }

      @Override
      public RoutingDecision route(RoutingContext context) {
        router[0].onSnapshot(TestData.ready("r1").epoch(1).build());
        CandidateView only = context.candidates().get(0);
        return RoutingDecision.routed(only, context.estimate(only));
      }
    };
    router[0] = Router.newBuilder().policy(restartingMidRoute).listener(listener)
        .ticker(new ManualTicker()).build();
    router[0].onSnapshot(queued("r1", 0));

    RoutingDecision d = router[0].route(request("q-1", prompt(64, 1)).build());

    assertThat(d.epoch()).isZero();
    assertThat(router[0].stats().inFlight()).isZero();
    assertThat(router[0].stats().orphaned()).isEqualTo(1);
    assertThat(router[0].replicas().get(0).inFlightRequests()).isZero();
    assertThat(listener.orphaned).containsExactly(new io.github.kvroute.api.RequestRef("q-1", 1));
  }
}
