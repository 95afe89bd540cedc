package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.UpdateResult;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A decision's allocation does not grow with the prompt: routing an 8,192-token prompt (512 block
 * keys, 4 KiB as an array) into an index that follows KV events, and completing it, allocates a small
 * constant, not a copy of the prompt's keys (the index's routed insert once copied them).
 */
class RouteAllocationTest {
  private static final String MODEL = "m";

  /** The JVM's per-thread allocated-bytes counter, switched on; the test is skipped without one. */
  private static com.sun.management.ThreadMXBean allocationCounter() {
    assumeThat(ManagementFactory.getThreadMXBean())
        .isInstanceOf(com.sun.management.ThreadMXBean.class);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeThat(threads.isThreadAllocatedMemorySupported()).isTrue();
    threads.setThreadAllocatedMemoryEnabled(true);
    return threads;
  }

  @Test
  void aLongPromptIsRoutedWithoutCopyingItsKeys() {
    com.sun.management.ThreadMXBean threads = allocationCounter();

    // a short lease timeout on a clock that moves 1 ms a decision: the closed-attempt set, which
    // remembers attempts for twice the timeout, stops growing after 2,000 decisions. The policy and
    // the listener override every method a decision calls: another test's inline mocks of the API's
    // interfaces instrument their default methods, which then allocate on each call in this JVM.
    ManualTicker ticker = new ManualTicker();
    Router router = Router.newBuilder().seed(1).ticker(ticker).leaseTimeout(Duration.ofSeconds(1))
        .listener(new RouterListener() {
          @Override
          public void onDecision(Request request, RoutingDecision decision) {}

          @Override
          public void onOutcome(Outcome outcome, UpdateResult result) {}
        })
        .policy(new RoutingPolicy() {
      @Override
      public String name() {
        return "deepest";
      }

      @Override
      public RoutingDecision route(RoutingContext context) {
        CandidateView deepest = context.candidates().get(0);
        for (CandidateView c : context.candidates()) {
          if (c.matchedBlocks() > deepest.matchedBlocks()) {
            deepest = c;
          }
        }
        return RoutingDecision.routed(deepest, CostBreakdown.empty());
      }
    }).build();
    CacheNamespace ns = CacheNamespace.of(MODEL);
    SplittableRandom random = new SplittableRandom(3);
    PromptKey[] prompts = new PromptKey[8];
    for (int r = 0; r < 8; r++) {
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("r" + r).model(MODEL)
          .kvBlocks(1_000, 100_000).kvBlockSizeTokens(16).build());
      int[] tokens = new int[8_192];
      for (int i = 0; i < tokens.length; i++) {
        tokens[i] = random.nextInt(100_000);
      }
      prompts[r] = PromptKey.ofTokens(tokens, ns);
      router.onKvEvent(KvEvent.stored("r" + r, 0, prompts[r].blockHashes()));
    }
    Request[] requests = new Request[4_000];
    Outcome[] outcomes = new Outcome[requests.length];
    for (int i = 0; i < requests.length; i++) {
      requests[i] = Request.newBuilder().id("q" + i).model(MODEL).prompt(prompts[i & 7])
          .maxOutputTokens(16).build();
    }
    long thread = Thread.currentThread().getId();
    long measured = 0;
    for (int round = 0; round < 2; round++) { // the first round warms up
      int from = round * 2_000;
      long before = threads.getThreadAllocatedBytes(thread);
      for (int i = from; i < from + 2_000; i++) {
        RoutingDecision d = router.route(requests[i]);
        if (d.isRouted()) {
          outcomes[i] = Outcome.newBuilder().requestId(requests[i].id()).replicaId(d.replicaId())
              .epoch(d.epoch()).status(OutcomeStatus.SUCCESS).build();
          router.onOutcome(outcomes[i]);
        }
      }
      measured = threads.getThreadAllocatedBytes(thread) - before;
    }
    // the decision, its lease and the outcome are a few hundred bytes; the keys would be 4 KiB more
    assertThat(measured / 2_000).isLessThan(2_048);
  }

  /**
   * With the default policy, a decision and its outcome allocate the decision the host keeps and
   * nothing else of the router's own: the attempt's lease and its insert record are reused, and the
   * decision keeps its cost's values without a breakdown. The outcomes are built before, so the
   * bytes are the router's alone; a lease (152 bytes), a breakdown (96) or an insert record (48)
   * per decision would each break the bound.
   */
  @Test
  void aDecisionAllocatesTheDecisionAndNothingElseOfItsOwn() {
    com.sun.management.ThreadMXBean threads = allocationCounter();

    // a short lease timeout on a clock that moves 1 ms a decision: the closed-attempt set, which
    // remembers attempts for twice the timeout, stops growing after 2,000 decisions
    ManualTicker ticker = new ManualTicker();
    Router router = Router.newBuilder().seed(1).ticker(ticker).leaseTimeout(Duration.ofSeconds(1))
        .policy(new LeastEstimateTotal()).listener(new SilentListener()).build();
    CacheNamespace ns = CacheNamespace.of(MODEL);
    SplittableRandom random = new SplittableRandom(5);
    int replicas = 8;
    PromptKey[] prompts = new PromptKey[replicas];
    for (int r = 0; r < replicas; r++) {
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("r" + r).model(MODEL)
          .waitingRequests(r % 3).runningRequests(4).kvBlocks(1_000, 100_000).kvBlockSizeTokens(16)
          .build());
      int[] tokens = new int[8_192];
      for (int i = 0; i < tokens.length; i++) {
        tokens[i] = random.nextInt(100_000);
      }
      prompts[r] = PromptKey.ofTokens(tokens, ns);
      router.onKvEvent(KvEvent.stored("r" + r, 0, prompts[r].blockHashes()));
    }
    int perRound = 4_000;
    int rounds = 12;
    Request[] requests = new Request[perRound * rounds];
    Outcome[][] outcomes = new Outcome[requests.length][replicas];
    for (int i = 0; i < requests.length; i++) {
      requests[i] = Request.newBuilder().id("q" + i).model(MODEL).prompt(prompts[i % replicas])
          .maxOutputTokens(16).build();
      for (int r = 0; r < replicas; r++) {
        outcomes[i][r] = Outcome.newBuilder().requestId(requests[i].id()).replicaId("r" + r)
            .epoch(0).status(OutcomeStatus.SUCCESS).build();
      }
    }
    long thread = Thread.currentThread().getId();
    long least = Long.MAX_VALUE;
    int applied = 0;
    for (int round = 0; round < rounds; round++) {
      long before = threads.getThreadAllocatedBytes(thread);
      for (int i = round * perRound; i < (round + 1) * perRound; i++) {
        ticker.advanceMillis(1);
        RoutingDecision d = router.route(requests[i]);
        // counted, not asserted here: an assertion allocates
        if (router.onOutcome(outcomes[i][d.replicaId().charAt(1) - '0'])
            == UpdateResult.APPLIED) {
          applied++;
        }
      }
      if (round >= 2) { // the first two warm up
        least = Math.min(least, threads.getThreadAllocatedBytes(thread) - before);
      }
    }
    assertThat(applied).isEqualTo(requests.length);
    // the least of ten rounds: the index, and what the compiler has not optimised yet, allocate in
    // some rounds and not in others; an object per decision would be in every round
    assertThat(least / perRound).isLessThan(144);
  }

  /**
   * Hybrid-cost's way (router-policies is not a dependency here): ranks by the estimate's total and
   * routes at the estimate. It overrides every method a decision calls, as {@link SilentListener}
   * does: another test's inline mocks of the API's interfaces instrument their default methods,
   * which then allocate on every call in this JVM.
   */
  private static final class LeastEstimateTotal implements RoutingPolicy {
    @Override
    public String name() {
      return "least-estimate-total";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      List<CandidateView> candidates = context.candidates();
      CandidateView best = candidates.get(0);
      double bestMillis = context.estimateMillis(best);
      for (int i = 1; i < candidates.size(); i++) {
        double ms = context.estimateMillis(candidates.get(i));
        if (ms < bestMillis) {
          best = candidates.get(i);
          bestMillis = ms;
        }
      }
      return context.routedWithEstimate(best, bestMillis);
    }

    @Override
    public void onOutcome(Outcome outcome) {}
  }

  /** Hears a decision and its outcome, and does nothing (see {@link LeastEstimateTotal}). */
  private static final class SilentListener implements RouterListener {
    @Override
    public void onDecision(Request request, RoutingDecision decision) {}

    @Override
    public void onOutcome(Outcome outcome, UpdateResult result) {}
  }

  /**
   * Routing a prompt to the slot that already holds all of it, and ending the attempt, costs the
   * index one object: the insert command (48 bytes). It is applied without a buffer node (24 more),
   * and the attempt's end submits no rollback (a command and a node, 48 more), as it would take
   * nothing back. Exact sizes, not a JIT's escape analysis: the objects escape.
   */
  @Test
  void aRoutedInsertOfAHeldPromptAllocatesOnlyItsCommand() {
    com.sun.management.ThreadMXBean threads = allocationCounter();

    PrefixIndex index = new PrefixIndex(64L << 20, 1L << 20, 1 << 16);
    int[] slot = index.allocateSlot();
    int[] tokens = new int[512];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = i * 7 + 1;
    }
    PromptKey prompt = IndexHarness.blocks(tokens);
    index.kvStored(slot[0], slot[1], prompt.blockHashes());
    long thread = Thread.currentThread().getId();
    long measured = 0;
    for (int round = 0; round < 2; round++) { // the first round warms up
      long before = threads.getThreadAllocatedBytes(thread);
      for (int i = 0; i < 2_000; i++) {
        IndexStore.Insert insert =
            index.insertRouted(slot[0], slot[1], prompt, prompt.blockCount());
        index.endSpeculation(insert);
      }
      measured = threads.getThreadAllocatedBytes(thread) - before;
    }
    assertThat(index.bufferedCommands()).isZero();
    assertThat(index.slotEntries(slot[0])).isEqualTo(prompt.blockCount());
    // the insert alone; with a buffer node it would be 72, with the rollback's pair 120
    assertThat(measured / 2_000).isLessThanOrEqualTo(56);
  }

  /**
   * The same into a record reused attempt after attempt (as a recycled lease keeps its record),
   * believed to add the whole prompt (nothing matched), so that each attempt's end submits its
   * rollback too: no object at all, the rollback command being the record's own. (The slot is
   * approximate and already holds the prompt, so the rollback takes nothing back.)
   */
  @Test
  void aRoutedInsertIntoAReusedRecord_andItsRollback_allocateNothing() {
    com.sun.management.ThreadMXBean threads = allocationCounter();

    PrefixIndex index = new PrefixIndex(64L << 20, 1L << 20, 1 << 16);
    int[] slot = index.allocateSlot();
    int[] tokens = new int[512];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = i * 7 + 1;
    }
    PromptKey[] prompts = {IndexHarness.blocks(tokens)};
    IndexStore.Insert record = new IndexStore.Insert();
    index.insertRouted(slot[0], slot[1], prompts[0], 0);
    long thread = Thread.currentThread().getId();
    long measured = 0;
    int submitted = 0;
    for (int round = 0; round < 2; round++) { // the first round warms up
      long before = threads.getThreadAllocatedBytes(thread);
      for (int i = 0; i < 2_000; i++) {
        // counted, not asserted here: an assertion allocates
        if (index.insertRouted(record, slot[0], slot[1], prompts[0], 0)) {
          submitted++;
        }
        index.endSpeculation(record);
      }
      measured = threads.getThreadAllocatedBytes(thread) - before;
    }
    assertThat(submitted).isEqualTo(4_000);
    assertThat(index.bufferedCommands()).isZero();
    assertThat(record.reusable()).isTrue();
    assertThat(measured / 2_000).isLessThanOrEqualTo(8);
  }
}
