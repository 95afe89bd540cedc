package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * A router alone keeps a request with its prefix's deepest holder, rather than copy the prefix to a
 * replica that ranks better, while the holder ranks within {@code stay_ratio} of the best, is
 * within the load bound and carries no other prefix's traffic ({@link HolderStay}).
 */
class HolderStayTest {
  /** 8,000 tokens: a 7,936-token document and a 64-token question, 500 blocks of 16. */
  private static final int DOC_TOKENS = 7_936;
  private static final int QUESTION_TOKENS = 64;
  private static final long SECOND = 1_000_000_000L;

  /** A question about document {@code doc}: the document's tokens, then the question's. */
  private static Request question(int doc, int question, Duration budget) {
    int[] tokens = new int[DOC_TOKENS + QUESTION_TOKENS];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = i < DOC_TOKENS ? (doc * 7919 + i * 31) & 0xffff : (question * 131 + i) & 0xffff;
    }
    Request.Builder b = Request.newBuilder().id("q-" + doc + "-" + question)
        .model(TestRequests.MODEL)
        .prompt(PromptKey.ofTokens(tokens, CacheNamespace.of(TestRequests.MODEL)));
    if (budget != null) {
      b.ttftBudget(budget);
    }
    return b.build();
  }

  /**
   * replica-0 holds the document (496 of the prompt's 500 blocks) and waits {@code holderQueue}
   * ms; replica-1 holds none of it and waits nothing. At 0.1 ms per token the copy's prefill is
   * about 800 ms, the holder's about 6 ms plus its wait.
   */
  private static List<CandidateView> fleet(double holderQueue) {
    return List.of(
        CandidateView.newBuilder().replicaId("replica-0").prefill(20, 0.1).cache(0, 1_000_000)
            .estimatedQueueMillis(holderQueue).inFlight(4, 32_000).matched(496, 496 * 16).build(),
        CandidateView.newBuilder().replicaId("replica-1").prefill(20, 0.1).cache(0, 1_000_000)
            .estimatedQueueMillis(0).inFlight(4, 32_000).build());
  }

  private static RoutingContext context(Request request, List<CandidateView> fleet, long nowNanos) {
    return FixedRoutingContext.of(request, fleet, RandomSource.seeded(1), nowNanos,
        CostModel.defaults());
  }

  private static HybridCostPolicy policy(double stayRatio) {
    return new HybridCostPolicy(Map.of(), false, HybridCostPolicy.Externality.ALL, true,
        LoadBound.DEFAULT_FACTOR, PastSaturation.DEFAULT_MILLIS,
        HybridCostPolicy.TIE_ORDER_SECONDS * 1_000, stayRatio);
  }

  @Test
  void aCopyWithinTheRatioIsNotMade_theRequestStaysWithTheHolder() {
    Request request = question(1, 1, null);
    assertThat(policy(0).route(context(request, fleet(1_500), 0)).replicaId())
        .as("without the rule the ranking copies the document").isEqualTo("replica-1");
    assertThat(policy(HolderStay.DEFAULT_RATIO).route(context(request, fleet(1_500), 0))
        .replicaId()).isEqualTo("replica-0");
  }

  @Test
  void aHolderRankedPastTheRatioLosesTheRequest() {
    // a 10 s wait against a ~820 ms copy: over 4 times the best
    assertThat(policy(HolderStay.DEFAULT_RATIO).route(context(question(1, 1, null), fleet(10_000),
        0)).replicaId()).isEqualTo("replica-1");
  }

  @Test
  void aRequestWithABudgetIsLeftToTheRanking() {
    Request request = question(1, 1, Duration.ofSeconds(5));
    assertThat(policy(HolderStay.DEFAULT_RATIO).route(context(request, fleet(1_500), 0))
        .replicaId()).isEqualTo("replica-1");
  }

  @Test
  void aHolderCarryingAnotherPrefixsTrafficLetsTheCopyGo() {
    HybridCostPolicy policy = policy(HolderStay.DEFAULT_RATIO);
    // document 2's questions go to replica-0, which holds it and waits nothing
    List<CandidateView> idleHolder = fleet(0);
    for (int i = 0; i < 20; i++) {
      assertThat(policy.route(context(question(2, i, null), idleHolder, i * SECOND / 10))
          .replicaId()).isEqualTo("replica-0");
    }
    // then replica-0 also holds document 1 and waits: its traffic is document 2's
    assertThat(policy.route(context(question(1, 1, null), fleet(1_500), 2 * SECOND))
        .replicaId()).isEqualTo("replica-1");
    // long after, replica-0's mix tells nothing any more
    long later = 2 * SECOND + (HolderStay.FORGET_AFTER_MEMORIES * HolderStay.MEMORY_SECONDS + 1)
        * SECOND;
    assertThat(policy.route(context(question(1, 2, null), fleet(1_500), later)).replicaId())
        .isEqualTo("replica-0");
  }

  @Test
  void aHolderCarryingMostlyThisPrefixKeepsIt() {
    HybridCostPolicy policy = policy(HolderStay.DEFAULT_RATIO);
    for (int i = 0; i < 20; i++) {
      policy.route(context(question(1, i, null), fleet(0), i * SECOND / 10));
    }
    assertThat(policy.route(context(question(1, 99, null), fleet(1_500), 2 * SECOND))
        .replicaId()).isEqualTo("replica-0");
  }

  /**
   * However many other prefixes pass through a replica's eight counters, one that has half of
   * its recent requests is found to dominate them, and is never taken for another prefix.
   */
  @Property(tries = 200)
  void aPrefixWithHalfTheRequestsIsFoundAmongAnyOthers(
      @ForAll @IntRange(min = 40, max = 400) int notes, @ForAll long seed) {
    HolderStay stay = new HolderStay(HolderStay.DEFAULT_RATIO);
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
    long hot = HolderStay.key(question(7, 0, null));
    long now = 0;
    for (int i = 0; i < notes; i++) {
      now += SECOND / 20;
      boolean isHot = i % 2 == 0;
      stay.noteKey("replica-0", isHot ? hot : rnd.nextLong(), now);
    }
    assertThat(stay.carriesOther("replica-0", rnd.nextLong(), now)).isTrue();
    assertThat(stay.carriesOther("replica-0", hot, now)).isFalse();
  }

  @Test
  void concurrentNotesOnOneReplicaKeepItsCountsWhole() throws Exception {
    HolderStay stay = new HolderStay(HolderStay.DEFAULT_RATIO);
    long hot = 42;
    int threads = 4;
    int notes = 20_000;
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(pool.submit(() -> {
          java.util.SplittableRandom rnd = new java.util.SplittableRandom(thread);
          for (int i = 0; i < notes; i++) {
            // every thread at the same instants: half the notes are the hot prefix's
            stay.noteKey("replica-0", i % 2 == 0 ? hot : rnd.nextLong(), i * 1_000_000L);
            stay.carriesOther("replica-0", rnd.nextLong(), i * 1_000_000L);
          }
        }));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    long end = notes * 1_000_000L;
    assertThat(stay.carriesOther("replica-0", 7, end)).isTrue();
    assertThat(stay.carriesOther("replica-0", hot, end)).isFalse();
    assertThat(stay.trackedReplicas()).isEqualTo(1);
  }

  @Test
  void theReplicasTrackedAreBounded_theForgottenMakeRoom() {
    HolderStay stay = new HolderStay(HolderStay.DEFAULT_RATIO);
    for (int i = 0; i < HolderStay.MAX_REPLICAS + 10; i++) {
      stay.noteKey("replica-" + i, 1, 0);
    }
    assertThat(stay.trackedReplicas()).isEqualTo(HolderStay.MAX_REPLICAS);
    assertThat(stay.carriesOther("replica-" + (HolderStay.MAX_REPLICAS + 5), 2, 0))
        .as("a replica past the bound is not tracked: it carries nothing").isFalse();
    long later = (HolderStay.FORGET_AFTER_MEMORIES * HolderStay.MEMORY_SECONDS + 1) * SECOND;
    stay.noteKey("replica-new", 1, later);
    assertThat(stay.trackedReplicas()).isEqualTo(1);
    assertThat(stay.carriesOther("replica-new", 2, later)).isTrue();
  }
}
