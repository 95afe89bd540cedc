package io.github.kvroute.testkit;

import io.github.kvroute.api.ManualTicker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.core.Router;
import io.github.kvroute.core.RouterStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;

/**
 * The thread-safety check of {@link RoutingPolicyContract}: {@value #ROUTERS} threads route
 * {@value #REQUESTS} requests each (reporting outcomes for every other one as they go) while a churn
 * thread applies {@value #CHURN} fleet changes (load reports, drains, restarts into new epochs,
 * removals and re-joins), all released together by a barrier. Bounded iterations, no sleeps, no
 * wall-clock assertions. Afterwards every routed attempt gets an outcome and the router's books must
 * balance.
 *
 * <p>Not thread-safe itself: one run per call.
 */
final class ConcurrentChurn {
  static final int ROUTERS = 4;
  static final int REQUESTS = 250;
  static final int CHURN = 300;
  static final int REPLICAS = 6;

  /** How the contract builds its router. */
  interface RouterFactory {
    Router create(ManualTicker ticker, long seed, RouterListener listener);
  }

  private record Routed(Request request, RoutingDecision decision) {}

  private ConcurrentChurn() {}

  static void run(RouterFactory factory, String policy) throws Exception {
    ManualTicker ticker = new ManualTicker();
    RoutingPolicyContract.Failures failures = new RoutingPolicyContract.Failures();
    Queue<Routed> open = new ConcurrentLinkedQueue<>();
    Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    try (Router router = factory.create(ticker, 99, failures)) {
      for (int i = 0; i < REPLICAS; i++) {
        router.onSnapshot(report("replica-" + i, 0, ReplicaState.READY, i));
      }
      CyclicBarrier start = new CyclicBarrier(ROUTERS + 1);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < ROUTERS; t++) {
        int thread = t;
        threads.add(new Thread(guarded(errors, () -> {
          start.await();
          for (int i = 0; i < REQUESTS; i++) {
            Request r = request(thread, i);
            RoutingDecision d = router.route(r);
            if (d.isRouted() && i % 2 == 0) {
              router.onOutcome(RouterScript.outcome(r, d, OutcomeStatus.SUCCESS));
            } else if (d.isRouted()) {
              open.add(new Routed(r, d));
            }
          }
        }), policy + "-router-" + t));
      }
      threads.add(new Thread(guarded(errors, () -> {
        start.await();
        long[] epochs = new long[REPLICAS];
        for (int i = 0; i < CHURN; i++) {
          int k = i % REPLICAS;
          String id = "replica-" + k;
          ticker.advanceMillis(1);
          switch ((i / REPLICAS) % 5) {
            case 0 -> router.onSnapshot(report(id, epochs[k], ReplicaState.READY, i));
            case 1 -> router.onSnapshot(report(id, epochs[k], ReplicaState.DRAINING, i));
            case 2 -> {
              epochs[k]++;
              router.onSnapshot(report(id, epochs[k], ReplicaState.STARTING, i));
              router.onSnapshot(report(id, epochs[k], ReplicaState.READY, i));
            }
            case 3 -> {
              router.removeReplica(id);
              epochs[k]++;
              router.onSnapshot(report(id, epochs[k], ReplicaState.READY, i));
            }
            default -> router.onSnapshot(report(id, epochs[k], ReplicaState.READY, i + 7));
          }
        }
      }), policy + "-churn"));
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join();
      }
      assertTrue(errors.isEmpty(), () -> "thread failed: " + errors.peek());
      for (Routed r : open) {
        router.onOutcome(RouterScript.outcome(r.request(), r.decision(), OutcomeStatus.SUCCESS));
      }
      RouterStats stats = router.stats();
      assertEquals((long) ROUTERS * REQUESTS, stats.decisions(), "every route counted once");
      assertEquals(0, stats.inFlight(), "attempts still in flight after every outcome");
      failures.assertNone(router);
    }
  }

  private interface Body {
    void run() throws Exception;
  }

  private static Runnable guarded(Queue<Throwable> errors, Body body) {
    return () -> {
      try {
        body.run();
      } catch (Throwable e) {
        errors.add(e);
      }
    };
  }

  private static ReplicaSnapshot report(String id, long epoch, ReplicaState state, int load) {
    return ReplicaSnapshot.newBuilder().replicaId(id).epoch(epoch).state(state)
        .model(KvrouteArbitraries.MODEL).waitingRequests(load % 7).runningRequests(load % 13)
        .queuedPrefillTokens(100L * (load % 50)).outstandingDecodeTokens(64L * (load % 30))
        .kvBlocks(load % 100, 100).kvBlockSizeTokens(16).build();
  }

  private static Request request(int thread, int i) {
    String m = KvrouteArbitraries.MODEL;
    int[] tokens = KvrouteArbitraries.systemPrompt(i % KvrouteArbitraries.SYSTEM_PROMPTS, 64 + i % 5);
    Request.Builder b = Request.newBuilder().id("t" + thread + "-" + i).model(m)
        .prompt(PromptKey.ofTokens(tokens, CacheNamespace.of(m))).maxOutputTokens(64);
    if (i % 3 == 0) {
      b.sessionId("session-" + (i % 11));
    }
    return b.build();
  }
}
