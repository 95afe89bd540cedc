package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Routing threads keep their views' book readings by the ledgers' versions while other threads
 * report, dispatch (their own routes), take first tokens and complete: once the writers stop, every
 * routing thread's kept readings must equal fresh copies of the books (a write that did not move a
 * version, or a copy kept across a write, would leave one behind), and the books must be empty once
 * every attempt has its outcome.
 */
class KeptReadingConcurrencyTest {
  private static final int ROUTERS = 3;
  private static final int ROUTES_PER_THREAD = 2_000;
  private static final int REPLICAS = 5;

  /** Least estimate; once {@link #check} is set, also compares each view with a fresh reading. */
  private static final class Checking implements RoutingPolicy {
    private final RoutingPolicy least = new LeastEstimatePolicy();
    volatile boolean check;
    final AtomicInteger checked = new AtomicInteger();

    @Override
    public String name() {
      return "checking";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      if (check) {
        for (CandidateView c : context.candidates()) {
          MutableView v = (MutableView) c;
          LedgerReading fresh = new LedgerReading();
          // with the decision's own decay clock, as the view's reading was taken
          v.entry.ledger.read(context.nowNanos(), fresh, ((DecisionContext) context).decay);
          assertThat(v.reading.inFlightRequests).isEqualTo(fresh.inFlightRequests);
          assertThat(v.reading.inFlightTokens).isEqualTo(fresh.inFlightTokens);
          assertThat(v.reading.sinceCount).isEqualTo(fresh.sinceCount);
          assertThat(v.reading.decodeReservedTokens).isEqualTo(fresh.decodeReservedTokens);
          assertThat(Double.doubleToRawLongBits(v.reading.queueMillis))
              .isEqualTo(Double.doubleToRawLongBits(fresh.queueMillis));
          assertThat(Double.doubleToRawLongBits(v.reading.ownRatePerSecond))
              .isEqualTo(Double.doubleToRawLongBits(fresh.ownRatePerSecond));
          checked.incrementAndGet();
        }
      }
      return least.route(context);
    }
  }

  private final Checking policy = new Checking();
  /** The system clock: the threads' reads interleave as they would in a gateway. */
  private final Router router =
      Router.newBuilder().policy(policy).ticker(Ticker.system()).seed(7).build();

  private static ReplicaSnapshot report(int replica, SplittableRandom random) {
    return TestData.ready("r" + replica).waitingRequests(random.nextInt(4))
        .queuedPrefillTokens(random.nextInt(4_000)).kvBlocks(random.nextInt(100), 4_000)
        .kvBlockSizeTokens(16).build();
  }

  @Test
  void keptReadingsEqualFreshCopiesAfterConcurrentWrites() throws Exception {
    SplittableRandom seed = new SplittableRandom(11);
    for (int r = 0; r < REPLICAS; r++) {
      router.onSnapshot(report(r, seed));
    }
    CyclicBarrier start = new CyclicBarrier(ROUTERS + 1);
    CyclicBarrier writersDone = new CyclicBarrier(ROUTERS + 1);
    Object turn = new Object();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < ROUTERS; t++) {
      int thread = t;
      threads.add(new Thread(() -> {
        try {
          SplittableRandom random = new SplittableRandom(thread);
          List<Request> open = new ArrayList<>();
          List<RoutingDecision> decisions = new ArrayList<>();
          start.await();
          for (int i = 0; i < ROUTES_PER_THREAD; i++) {
            Request request = TestData.request("t" + thread + "-" + i,
                TestData.prompt(64 + random.nextInt(1_000), random.nextInt(4))).build();
            RoutingDecision d = router.route(request);
            if (d.isRouted()) {
              open.add(request);
              decisions.add(d);
            }
            // the outcomes and first tokens of this thread's own routes: writes to the books the
            // other threads keep readings of
            if (!open.isEmpty() && random.nextInt(3) == 0) {
              int k = random.nextInt(open.size());
              RoutingDecision done = decisions.get(k);
              if (random.nextBoolean()) {
                router.onFirstToken(open.get(k).id(), 1, done.replicaId(), done.epoch());
              } else {
                router.onOutcome(TestData.outcome(open.remove(k), decisions.remove(k),
                    OutcomeStatus.SUCCESS).build());
              }
            }
          }
          for (int k = 0; k < open.size(); k++) {
            router.onOutcome(
                TestData.outcome(open.get(k), decisions.get(k), OutcomeStatus.SUCCESS).build());
          }
          writersDone.await();
          // quiet books: one route at a time, each thread checking its own kept readings (a
          // route dispatches, so two at once would change the books under the other's check)
          synchronized (turn) {
            Request last = TestData.request("last-" + thread, TestData.prompt(64, 0)).build();
            RoutingDecision d = router.route(last);
            router.onOutcome(TestData.outcome(last, d, OutcomeStatus.SUCCESS).build());
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    threads.forEach(Thread::start);
    start.await();
    SplittableRandom random = new SplittableRandom(5);
    int reports = 0;
    while (threads.stream().anyMatch(Thread::isAlive) && writersDone.getNumberWaiting() < ROUTERS
        && failure.get() == null) {
      router.onSnapshot(report(random.nextInt(REPLICAS), random));
      reports++;
      Thread.onSpinWait();
    }
    policy.check = true;
    writersDone.await(60, TimeUnit.SECONDS);
    for (Thread t : threads) {
      t.join(60_000);
    }
    assertThat(failure.get()).as("no thread failed").isNull();
    assertThat(reports).as("reports arrived while routing").isPositive();
    assertThat(policy.checked.get()).as("views checked").isEqualTo(ROUTERS * REPLICAS);
    for (ReplicaStatus s : router.replicas()) {
      assertThat(s.inFlightRequests()).as("%s's books after every outcome", s.replicaId())
          .isZero();
    }
  }
}
