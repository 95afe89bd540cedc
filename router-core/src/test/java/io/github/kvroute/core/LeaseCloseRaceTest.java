package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Closing a lease is two steps (mark closed, leave the open map). An outcome that arrives exactly
 * between them, while another thread orphans or supersedes the attempt, must be told the truth:
 * applied (it won the close) or a duplicate (the other thread won), never {@code UNKNOWN_REQUEST}.
 * The interleaving is forced through {@link LeaseTable#betweenCloseSteps}, so the test is
 * deterministic: with the steps the other way round (leave the map, then mark) the outcome finds the
 * attempt in neither map and every run fails.
 */
class LeaseCloseRaceTest {
  private final ManualTicker ticker = new ManualTicker();
  private final Router router =
      Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker).build();

  @Test
  void anOutcomeBetweenTheStepsOfAnOrphaning_isNeverUnknown() throws Exception {
    router.onSnapshot(queued("r1", 0));
    Request first = request("q-1", prompt(1_000, 1)).build();
    RoutingDecision d = router.route(first);

    // the replica restarts: its attempts are orphaned on this thread
    UpdateResult result = outcomeAtTheSeamOf(
        () -> router.onSnapshot(ready("r1").epoch(1).estimatedQueueDelayMillis(0).build()),
        () -> router.onOutcome(outcome(first, d, OutcomeStatus.SUCCESS).build()));

    assertThat(result).isIn(UpdateResult.APPLIED, UpdateResult.DUPLICATE);
    assertBooksBalance();
  }

  @Test
  void anOutcomeBetweenTheStepsOfASupersede_isNeverUnknown() throws Exception {
    router.onSnapshot(queued("r1", 0));
    Request first = request("q-1", prompt(1_000, 1)).build();
    RoutingDecision d = router.route(first);

    UpdateResult result = outcomeAtTheSeamOf(() -> router.route(first.nextAttempt()),
        () -> router.onOutcome(outcome(first, d, OutcomeStatus.SUCCESS).build()));

    assertThat(result).isIn(UpdateResult.APPLIED, UpdateResult.DUPLICATE);
    assertBooksBalance();
  }

  /**
   * Runs {@code closer} on a second thread, stops it between the two steps of its first lease
   * close, runs {@code outcome} on this thread there, then lets the closer finish.
   */
  private UpdateResult outcomeAtTheSeamOf(Runnable closer, java.util.concurrent.Callable<UpdateResult>
      outcome) throws Exception {
    CountDownLatch atSeam = new CountDownLatch(1);
    CountDownLatch outcomeDone = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    Consumer<Lease> seam = lease -> {
      if (first.compareAndSet(true, false)) {
        atSeam.countDown();
        awaitOrFail(outcomeDone);
      }
    };
    router.leases().betweenCloseSteps = seam;
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread closing = new Thread(() -> {
      try {
        closer.run();
      } catch (Throwable t) {
        failure.set(t);
      }
    }, "closer");
    closing.start();
    try {
      assertThat(atSeam.await(30, TimeUnit.SECONDS)).as("the closer reached the seam").isTrue();
      return outcome.call();
    } finally {
      outcomeDone.countDown();
      closing.join(30_000);
      router.leases().betweenCloseSteps = null;
      assertThat(closing.isAlive()).isFalse();
      assertThat(failure.get()).isNull();
    }
  }

  private static void awaitOrFail(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("the outcome never ran");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Each attempt ended exactly once: routed = in flight + applied + expired + orphaned. */
  private void assertBooksBalance() {
    RouterStats s = router.stats();
    assertThat(s.routed()).isEqualTo(s.inFlight() + s.outcomesApplied() + s.expired()
        + s.orphaned());
    assertThat(router.replicas().get(0).inFlightRequests()).isEqualTo((int) s.inFlight());
  }
}
