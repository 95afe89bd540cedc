package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.LatencyTotals;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.core.CostTerm;
import io.github.kvroute.core.Router;
import io.github.kvroute.core.RoutingContexts;
import io.github.kvroute.core.StandardRanking;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The scores the router computes with each view for {@code hybrid-cost}'s declared ranking
 * ({@link StandardRanking}) are, candidate by candidate, the bits of the policy's own ranking
 * through {@link RoutingContext} ({@code rankingMillis}), for random weights, externalities,
 * reports (with and without waiting counts, KV use, TTFT histograms), KV events, sends, first
 * tokens and outcomes; and outside the router's own decision there are none.
 */
class StandardRankingProperties {
  private static final String MODEL = "model";
  private static final CacheNamespace NS = CacheNamespace.of(MODEL);

  /** One step: {@code kind} 0-4 route, 5 outcome, 6 first token, 7-8 report, 9 KV event. */
  record Op(int kind, int pick, int millis, int value) {}

  @Provide
  Arbitrary<List<Op>> ops() {
    return Combinators.combine(Arbitraries.integers().between(0, 9),
        Arbitraries.integers().between(0, 1_000), Arbitraries.integers().between(0, 300),
        Arbitraries.integers().between(0, 5_000)).as(Op::new).list().ofMinSize(1).ofMaxSize(100);
  }

  /** Compares the batch scores with the per-candidate ranking, then lets the policy decide. */
  private static final class Comparing implements RoutingPolicy, StandardRanking.Ranked {
    final HybridCostPolicy policy;
    final boolean queueing;
    int compared;

    Comparing(HybridCostPolicy policy, boolean queueing) {
      this.policy = policy;
      this.queueing = queueing;
    }

    @Override
    public String name() {
      return "comparing";
    }

    @Override
    public StandardRanking standardRanking() {
      return policy.standardRanking();
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      List<CandidateView> candidates = context.candidates();
      double[] scores = policy.standardRanking().scores(context);
      assertThat(scores).as("the router's own decision has scores").isNotNull();
      double fleet = queueing ? Externalities.fleetRequestsInSystem(candidates) : 0;
      for (int i = 0; i < candidates.size(); i++) {
        double expected = policy.rankingMillis(context, candidates.get(i), fleet);
        assertThat(Double.doubleToRawLongBits(scores[i])).as("%s: %s vs %s",
            candidates.get(i).replicaId(), scores[i], expected)
            .isEqualTo(Double.doubleToRawLongBits(expected));
        compared++;
      }
      return policy.route(context);
    }
  }

  @Property(tries = 150)
  void batchScoresAreThePerCandidateRanking(@ForAll("ops") List<Op> ops,
      @ForAll @IntRange(min = 0, max = 3) int externality,
      @ForAll @IntRange(min = 0, max = 63) int weightMask) {
    HybridCostPolicy.Externality ext = HybridCostPolicy.Externality.values()[externality];
    Map<CostTerm, Double> weights = new EnumMap<>(CostTerm.class);
    for (CostTerm term : CostTerm.values()) {
      if ((weightMask >> term.ordinal() & 1) != 0) {
        weights.put(term, term.ordinal() * 0.7);
      }
    }
    Comparing comparing = new Comparing(new HybridCostPolicy(weights, false, ext, true,
        LoadBound.DEFAULT_FACTOR), ext.queueing);
    ManualTicker ticker = new ManualTicker();
    Router router = Router.newBuilder().policy(comparing).ticker(ticker).seed(3).build();
    int replicas = 5;
    long[] ttftCount = new long[replicas];
    for (int r = 0; r < replicas; r++) {
      router.onSnapshot(report(r, 0, 0, ttftCount));
    }
    List<Request> sent = new ArrayList<>();
    List<RoutingDecision> decisions = new ArrayList<>();
    int n = 0;
    int routed = 0;
    for (Op op : ops) {
      ticker.advanceMillis(op.millis());
      switch (op.kind()) {
        case 0, 1, 2, 3, 4 -> {
          Request request = Request.newBuilder().id("q" + ++n).model(MODEL)
              .prompt(prompt(64 + op.value() % 3_000, op.pick() % 4))
              .maxOutputTokens(1 + op.value() % 300).build();
          RoutingDecision d = router.route(request);
          if (d.isRouted()) {
            routed++;
            sent.add(request);
            decisions.add(d);
          }
        }
        case 5 -> {
          if (!sent.isEmpty()) {
            int i = op.pick() % sent.size();
            Request request = sent.remove(i);
            RoutingDecision d = decisions.remove(i);
            router.onOutcome(Outcome.newBuilder().requestId(request.id())
                .attempt(request.attempt()).replicaId(d.replicaId()).epoch(d.epoch())
                .status(OutcomeStatus.SUCCESS).build());
          }
        }
        case 6 -> {
          if (!sent.isEmpty()) {
            int i = op.pick() % sent.size();
            RoutingDecision d = decisions.get(i);
            router.onFirstToken(sent.get(i).id(), sent.get(i).attempt(), d.replicaId(),
                d.epoch());
          }
        }
        case 7, 8 -> router.onSnapshot(report(op.pick() % replicas, op.value(), op.pick(),
            ttftCount));
        default -> router.onKvEvent(KvEvent.stored("r" + op.pick() % replicas, 0,
            prompt(64 + op.value() % 3_000, op.pick() % 4).blockHashes()));
      }
    }
    assertThat(comparing.compared).as("candidates compared").isGreaterThanOrEqualTo(routed);
    Request request = Request.newBuilder().id("fixed").model(MODEL).prompt(prompt(64, 0)).build();
    CandidateView plain = CandidateView.newBuilder().replicaId("x").build();
    assertThat(comparing.standardRanking().scores(RoutingContexts.fixed(request,
        List.of(plain), RandomSource.seeded(1), 0, CostModel.defaults())))
        .as("a context other than the router's decision has no scores").isNull();
  }

  private static PromptKey prompt(int tokens, int family) {
    int[] t = new int[tokens];
    for (int i = 0; i < tokens; i++) {
      t[i] = i < tokens / 2 ? family * 100_000 + i : (family * 7919 + i * 31) & 0xffff;
    }
    return PromptKey.ofTokens(t, NS);
  }

  /** A report whose optional fields come and go with {@code shape}; TTFT counts only grow. */
  private static ReplicaSnapshot report(int replica, int value, int shape, long[] ttftCount) {
    ReplicaSnapshot.Builder b = ReplicaSnapshot.newBuilder().replicaId("r" + replica).model(MODEL);
    if (shape % 2 == 0) {
      b.waitingRequests(value % 11).queuedPrefillTokens(value);
    }
    if (shape % 3 == 0) {
      b.kvBlocks(value % 300, 300).kvBlockSizeTokens(16);
    }
    if (shape % 5 != 0) {
      b.decodeStepMillis(5 + value % 40);
    }
    if (shape % 4 == 1) {
      ttftCount[replica] += 1 + value % 20;
      b.timeToFirstToken(new LatencyTotals(ttftCount[replica] * 0.05 * (1 + shape % 5),
          ttftCount[replica]));
    }
    return b.build();
  }
}
