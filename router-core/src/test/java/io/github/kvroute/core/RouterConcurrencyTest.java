package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Four threads route while one applies reports (including restarts, state flips and removals) and
 * another KV events, for a fixed number of iterations each; then every routed attempt is reported.
 * The index's budget is its minimum, so it compacts often, mostly on the default compaction
 * executor while routes walk it.
 */
class RouterConcurrencyTest {
  private static final int ROUTERS = 4;
  private static final int ROUTES_PER_THREAD = 3_000;
  private static final int TELEMETRY_UPDATES = 3_000;
  private static final int REPLICAS = 6;

  private final ManualTicker ticker = new ManualTicker();
  private final AtomicLong orphanedReported = new AtomicLong();
  private final Router router = Router.newBuilder().policy(new LeastEstimatePolicy())
      .ticker(ticker).seed(17).indexBudgetBytes(PrefixIndex.MIN_BUDGET_BYTES)
      .listener(new RouterListener() {
        @Override
        public void onOrphaned(String replicaId, long epoch, List<RequestRef> attempts) {
          orphanedReported.addAndGet(attempts.size());
        }
      })
      .build();
  /** The newest epoch each replica was given (written by the report thread only). */
  private final AtomicLongArray epochs = new AtomicLongArray(REPLICAS);
  private final ExecutorService pool = Executors.newFixedThreadPool(ROUTERS + 2);

  private record Routed(Request request, RoutingDecision decision) {}

  @AfterEach
  void shutDown() {
    pool.shutdownNow();
  }

  private static String id(int replica) {
    return "r" + replica;
  }

  private static PromptKey prompt(SplittableRandom random) {
    return TestData.prompt(64 + random.nextInt(2_000), random.nextInt(8));
  }

  private static ReplicaSnapshot report(int replica, long epoch, ReplicaState state, double queue) {
    return ReplicaSnapshot.newBuilder().replicaId(id(replica)).epoch(epoch).state(state)
        .model(TestData.MODEL).estimatedQueueDelayMillis(queue).kvBlocks(100, 4_000)
        .kvBlockSizeTokens(16).build();
  }

  @Test
  void routingStaysCorrectWhileTelemetryAndKvEventsChurn() throws Exception {
    for (int r = 0; r < REPLICAS; r++) {
      router.onSnapshot(report(r, 0, ReplicaState.READY, 0));
    }
    CyclicBarrier start = new CyclicBarrier(ROUTERS + 2);
    List<Future<List<Routed>>> routers = new ArrayList<>();
    for (int t = 0; t < ROUTERS; t++) {
      int thread = t;
      routers.add(pool.submit(() -> {
        SplittableRandom random = new SplittableRandom(thread);
        List<Routed> routed = new ArrayList<>();
        start.await();
        for (int i = 0; i < ROUTES_PER_THREAD; i++) {
          Request request = TestData.request("t" + thread + "-" + i, prompt(random)).build();
          RoutingDecision d = router.route(request);
          if (d.isRouted()) {
            routed.add(new Routed(request, d));
          }
        }
        return routed;
      }));
    }
    Future<Integer> reports = pool.submit(reportChurn(start));
    Future<Integer> events = pool.submit(kvChurn(start));

    List<Routed> all = new ArrayList<>();
    for (Future<List<Routed>> f : routers) {
      all.addAll(f.get(60, TimeUnit.SECONDS));
    }
    assertThat(reports.get(60, TimeUnit.SECONDS)).isEqualTo(TELEMETRY_UPDATES);
    assertThat(events.get(60, TimeUnit.SECONDS)).isEqualTo(TELEMETRY_UPDATES);

    Set<String> members = Set.of("r0", "r1", "r2", "r3", "r4", "r5");
    assertThat(all).as("some requests were routed").hasSizeGreaterThan(ROUTERS * 100);
    for (Routed r : all) {
      assertThat(members).contains(r.decision().replicaId());
      int replica = Integer.parseInt(r.decision().replicaId().substring(1));
      assertThat(r.decision().epoch()).isBetween(0L, epochs.get(replica));
    }
    ConcurrentLinkedQueue<UpdateResult> results = new ConcurrentLinkedQueue<>();
    for (Routed r : all) {
      results.add(router.onOutcome(Outcome.newBuilder().requestId(r.request().id())
          .replicaId(r.decision().replicaId()).epoch(r.decision().epoch())
          .status(OutcomeStatus.SUCCESS).build()));
    }

    RouterStats stats = router.stats();
    assertThat(results).allMatch(u -> u == UpdateResult.APPLIED || u == UpdateResult.DUPLICATE);
    assertThat(stats.pluginFailures()).isZero();
    assertThat(stats.inFlight()).isZero();
    assertThat(stats.routed()).isEqualTo(all.size());
    assertThat(stats.routed()).isEqualTo(stats.outcomesApplied() + stats.expired() + stats.orphaned());
    assertThat(stats.orphaned()).isEqualTo(orphanedReported.get());
    assertThat(stats.decisions()).isEqualTo((long) ROUTERS * ROUTES_PER_THREAD);
    for (ReplicaEntry entry : router.fleet().members()) {
      assertThat(entry.ledger.inFlightRequests()).as("in flight on %s", entry).isZero();
    }
    router.index().flush();
    RouterStats flushed = router.stats();
    assertThat(flushed.indexBytes()).isLessThanOrEqualTo(flushed.indexBudgetBytes());
    long perSlot = 0;
    for (ReplicaEntry entry : router.fleet().members()) {
      perSlot += router.index().slotEntries(entry.slot);
    }
    assertThat(flushed.indexEntries()).isEqualTo(perSlot);
    // the default executor took compactions off the writing threads while routes ran (some
    // 100-250 of 140-300 in three runs; the rest were due where the arrays had no room to wait)
    assertThat(router.index().compactionsApart()).isPositive();
    assertThat(router.stats().indexCompactions()).isEqualTo(router.index().compactions())
        .isGreaterThanOrEqualTo(router.index().compactionsApart());
  }

  /** Reports: mostly load updates, sometimes state flips, restarts, stops and removals. */
  private Callable<Integer> reportChurn(CyclicBarrier start) {
    return () -> {
      SplittableRandom random = new SplittableRandom(100);
      start.await();
      for (int i = 0; i < TELEMETRY_UPDATES; i++) {
        int r = random.nextInt(REPLICAS);
        long epoch = epochs.get(r);
        int dice = random.nextInt(100);
        ticker.advanceMillis(1);
        if (dice < 70) {
          router.onSnapshot(report(r, epoch, ReplicaState.READY, random.nextInt(500)));
        } else if (dice < 80) {
          router.onSnapshot(report(r, epoch, ReplicaState.DRAINING, 0));
        } else if (dice < 90) {
          epochs.set(r, epoch + 1);
          router.onSnapshot(report(r, epoch + 1, ReplicaState.STARTING, 0));
        } else if (dice < 95) {
          router.onSnapshot(report(r, epoch, ReplicaState.STOPPED, 0));
        } else {
          router.removeReplica(id(r));
          epochs.set(r, epoch + 1);
          router.onSnapshot(report(r, epoch + 1, ReplicaState.READY, 0));
        }
      }
      return TELEMETRY_UPDATES;
    };
  }

  /** KV events in each replica's newest epoch: stores of prompt prefixes, removals, clears. */
  private Callable<Integer> kvChurn(CyclicBarrier start) {
    return () -> {
      SplittableRandom random = new SplittableRandom(200);
      start.await();
      for (int i = 0; i < TELEMETRY_UPDATES; i++) {
        int r = random.nextInt(REPLICAS);
        long epoch = epochs.get(r);
        PromptKey p = prompt(random);
        int dice = random.nextInt(100);
        if (dice < 70) {
          router.onKvEvent(KvEvent.stored(id(r), epoch, p.blockHashes()));
        } else if (dice < 95) {
          router.onKvEvent(KvEvent.removed(id(r), epoch,
              java.util.Arrays.copyOf(p.blockHashes(), p.blockCount() / 2)));
        } else {
          router.onKvEvent(KvEvent.cleared(id(r), epoch));
        }
      }
      return TELEMETRY_UPDATES;
    };
  }
}
