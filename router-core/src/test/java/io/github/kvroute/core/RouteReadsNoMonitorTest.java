package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.RoutingDecision;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A decision reads every candidate's books without entering a monitor: it completes while another
 * thread holds every replica's ledger. (Admission rejects, so the decision records nothing: recording
 * a routed decision does lock the chosen replica's ledger, once.)
 */
class RouteReadsNoMonitorTest {
  private static final int REPLICAS = 16;

  @Test
  void aDecisionOverEveryCandidateCompletesWhileAnotherThreadHoldsEveryLedger() throws Exception {
    AdmissionController rejectAll = (context, proposed) ->
        RoutingDecision.rejected(RejectReason.OVERLOADED, "test", null);
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).admission(rejectAll)
        .build();
    for (int r = 0; r < REPLICAS; r++) {
      router.onSnapshot(TestData.ready("r" + r).waitingRequests(r % 3).build());
    }
    // one decision first, so that the one measured below loads no class while the ledgers are held
    router.route(request("q-0", prompt(64, 1)).build());
    ReplicaEntry[] members = router.fleet().members();
    assertThat(members).hasSize(REPLICAS);

    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    Thread holder = new Thread(() -> holdAll(members, 0, held, letGo));
    holder.start();
    held.await();

    AtomicReference<RoutingDecision> decided = new AtomicReference<>();
    Thread routing = new Thread(() -> decided.set(router.route(request("q-1", prompt(64, 1))
        .build())));
    boolean blocked = false;
    try {
      routing.start();
      // a decision that wanted a held ledger would park BLOCKED on it until we let go
      while (routing.getState() != Thread.State.TERMINATED) {
        if (DispatchLedgerReadTest.blockedOnALedger(routing)) {
          blocked = true;
          break;
        }
        Thread.onSpinWait();
      }
    } finally {
      letGo.countDown();
      holder.join();
      routing.join();
    }
    assertThat(blocked).as("the decision waited for a ledger's monitor").isFalse();
    assertThat(decided.get().reason()).isEqualTo(RejectReason.OVERLOADED);
  }

  /** Enters every ledger's monitor, nested, then waits to be let go. */
  private static void holdAll(ReplicaEntry[] members, int from, CountDownLatch held,
      CountDownLatch letGo) {
    if (from == members.length) {
      held.countDown();
      try {
        letGo.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    synchronized (members[from].ledger) {
      holdAll(members, from + 1, held, letGo);
    }
  }

}
