package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

/**
 * A thread that looked a lease up (a duplicate outcome, a first token) and still acts on it while
 * the attempt's own outcome closes it and new routes reuse closed leases: it must act on its own
 * attempt, never on the attempt a reused lease now stands for (that would close or mark another
 * request, and that request's own outcome would then be refused).
 */
class LeaseReuseRaceTest {
  private final ManualTicker ticker = new ManualTicker();
  private final Router router =
      Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker).build();

  /**
   * Forced interleaving: a duplicate outcome holds the lease and stops inside its close (through
   * {@link LeaseTable#betweenCloseSteps}); the real outcome closes the attempt meanwhile, and the
   * next request, of the same stripe, is routed. Its lease must be another: were the held lease
   * reused (a pin not counted), the duplicate's close would then close the new request's attempt,
   * whose own outcome would be answered {@code UNKNOWN_REQUEST}.
   */
  @Test
  void aLeaseHeldByADuplicateOutcome_isNotReusedUnderIt() throws Exception {
    router.onSnapshot(queued("r1", 0));
    List<String> ids = LeaseRecyclingTest.idsInOneStripe(3);
    Request first = request(ids.get(0), prompt(1_000, 1)).build();
    RoutingDecision d1 = router.route(first);
    Outcome done = outcome(first, d1, OutcomeStatus.SUCCESS).build();

    CountDownLatch atSeam = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    AtomicReference<Lease> heldByDuplicate = new AtomicReference<>();
    AtomicReference<Thread> duplicate = new AtomicReference<>();
    router.leases().betweenCloseSteps = lease -> {
      if (Thread.currentThread() == duplicate.get() && heldByDuplicate.compareAndSet(null, lease)) {
        atSeam.countDown();
        await(resume);
      }
    };
    AtomicReference<UpdateResult> duplicateResult = new AtomicReference<>();
    Thread t = new Thread(() -> duplicateResult.set(router.onOutcome(done)), "duplicate");
    duplicate.set(t);
    t.start();
    assertThat(atSeam.await(30, TimeUnit.SECONDS)).as("the duplicate reached the seam").isTrue();

    UpdateResult real = router.onOutcome(done);
    Request second = request(ids.get(1), prompt(1_000, 2)).build();
    RoutingDecision d2 = router.route(second);
    Lease secondLease = router.leases().hold(new RequestRef(second.id(), 1));
    router.leases().unpin(secondLease);
    resume.countDown();
    t.join(30_000);
    router.leases().betweenCloseSteps = null;

    assertThat(t.isAlive()).isFalse();
    assertThat(secondLease).isNotSameAs(heldByDuplicate.get());
    // one of the two closes of the first attempt won, and the other was told it was a duplicate
    assertThat(List.of(real, duplicateResult.get()))
        .containsExactlyInAnyOrder(UpdateResult.APPLIED, UpdateResult.DUPLICATE);
    assertThat(router.onOutcome(outcome(second, d2, OutcomeStatus.SUCCESS).build()))
        .isEqualTo(UpdateResult.APPLIED);
    // the first lease is free again once the duplicate let go: the third request reuses one
    Request third = request(ids.get(2), prompt(1_000, 3)).build();
    RoutingDecision d3 = router.route(third);
    Lease thirdLease = router.leases().hold(new RequestRef(third.id(), 1));
    router.leases().unpin(thirdLease);
    assertThat(thirdLease).isIn(heldByDuplicate.get(), secondLease);
    assertThat(router.onOutcome(outcome(third, d3, OutcomeStatus.SUCCESS).build()))
        .isEqualTo(UpdateResult.APPLIED);
    assertBooksBalance(3);
  }

  /**
   * Free running: one thread routes and completes requests; another races each in-flight request
   * with first tokens and a duplicate outcome. Every request is applied exactly once (by one of the
   * two threads), no report is ever matched to another request's attempt, and the books balance.
   */
  @Test
  void duplicatesAndFirstTokensRacingReuse_actOnlyOnTheirOwnAttempt() throws Exception {
    router.onSnapshot(queued("r1", 0));
    router.onSnapshot(queued("r2", 0));
    int requests = 20_000;
    PromptKey prompt = prompt(256, 7);
    AtomicReferenceArray<Outcome> inFlight = new AtomicReferenceArray<>(requests);
    AtomicReferenceArray<UpdateResult> racedResults = new AtomicReferenceArray<>(requests);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicBoolean routingDone = new AtomicBoolean();
    Map<UpdateResult, Integer> firstTokens = new EnumMap<>(UpdateResult.class);

    Thread racer = new Thread(() -> {
      try {
        int next = 0;
        while (next < requests && !(routingDone.get() && inFlight.get(next) == null)) {
          Outcome o = inFlight.get(next);
          if (o == null) {
            Thread.onSpinWait();
            continue;
          }
          UpdateResult first = router.onFirstToken(o.requestId(), o.attempt(), o.replicaId(),
              o.epoch());
          firstTokens.merge(first, 1, Integer::sum);
          racedResults.set(next, router.onOutcome(o));
          next++;
        }
      } catch (Throwable e) {
        failure.set(e);
      }
    }, "racer");
    racer.start();
    UpdateResult[] own = new UpdateResult[requests];
    for (int i = 0; i < requests; i++) {
      Request r = request("q-" + i, prompt).build();
      RoutingDecision d = router.route(r);
      Outcome o = outcome(r, d, OutcomeStatus.SUCCESS).build();
      inFlight.set(i, o);
      own[i] = router.onOutcome(o);
    }
    routingDone.set(true);
    racer.join(60_000);

    assertThat(racer.isAlive()).isFalse();
    assertThat(failure.get()).isNull();
    for (int i = 0; i < requests; i++) {
      UpdateResult raced = racedResults.get(i);
      assertThat(List.of(own[i], raced)).as("request q-%s", i)
          .containsExactlyInAnyOrder(UpdateResult.APPLIED, UpdateResult.DUPLICATE);
    }
    assertThat(firstTokens.keySet())
        .isSubsetOf(UpdateResult.APPLIED, UpdateResult.DUPLICATE);
    assertBooksBalance(requests);
    assertThat(router.leases().freeCount()).isPositive();
  }

  private void assertBooksBalance(long applied) {
    RouterStats s = router.stats();
    assertThat(s.inFlight()).isZero();
    assertThat(s.outcomesApplied()).isEqualTo(applied);
    assertThat(s.routed()).isEqualTo(s.outcomesApplied() + s.expired() + s.orphaned());
    for (var replica : router.replicas()) {
      assertThat(replica.inFlightRequests()).as(replica.replicaId()).isZero();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("the test never resumed the duplicate");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
