package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.Scorer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

/**
 * The router's weighted estimate asks a weight function once per term per decision (not once per
 * term per candidate), gives each function its own weights, and asks again in the next decision; the
 * weighted totals are those of the breakdown weighted term by term. A decision evaluates each term
 * once per candidate: estimates, weighted ones and the routed decision's cost reuse those values.
 */
class WeightedEstimateTest {
  private static final int REPLICAS = 8;

  /** Ranks every candidate with {@code weights}, then with {@code other}, keeping the totals. */
  private static final class Ranking implements RoutingPolicy {
    /** The function the policy ranks with, and the same weights uncounted, for the reference. */
    ToDoubleFunction<String> weights;
    ToDoubleFunction<String> reference;
    ToDoubleFunction<String> other;
    final List<double[]> totals = new ArrayList<>();

    @Override
    public String name() {
      return "ranking";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      for (CandidateView c : context.candidates()) {
        CostBreakdown b = context.estimate(c);
        totals.add(new double[] {context.weightedEstimateMillis(c, weights),
            byBreakdown(b, reference), context.weightedEstimateMillis(c, other),
            byBreakdown(b, other)});
      }
      return RoutingDecision.routed(context.candidates().get(0), CostBreakdown.empty());
    }

    private static double byBreakdown(CostBreakdown b, ToDoubleFunction<String> weights) {
      double total = 0;
      for (int i = 0; i < b.size(); i++) {
        total += weights.applyAsDouble(b.term(i)) * b.millis(i);
      }
      return total;
    }
  }

  @Test
  void aWeightFunctionIsAskedOncePerTermPerDecisionAndEachFunctionGetsItsOwnWeights() {
    Ranking policy = new Ranking();
    Router router = Router.newBuilder().seed(1).policy(policy).build();
    for (int r = 0; r < REPLICAS; r++) {
      router.onSnapshot(TestData.ready("r" + r).waitingRequests(r % 3)
          .queuedPrefillTokens(500L * r).decodeStepMillis(10 + r).build());
    }
    int terms = CostTerm.values().length;
    AtomicInteger asked = new AtomicInteger();
    double[] queueWeight = {2.0};
    policy.reference = name -> name.equals(CostTerm.QUEUE.termName()) ? queueWeight[0] : 0.5;
    policy.weights = name -> {
      asked.incrementAndGet();
      return policy.reference.applyAsDouble(name);
    };
    policy.other = name -> name.equals(CostTerm.STEP.termName()) ? 3.0 : 1.0;

    router.route(request("q-0", prompt(64, 1)).build());
    assertThat(asked.get()).isEqualTo(terms);
    assertThat(policy.totals).hasSize(REPLICAS);
    for (double[] t : policy.totals) {
      assertThat(t[0]).isEqualTo(t[1]);
      assertThat(t[2]).isEqualTo(t[3]);
    }
    assertThat(policy.totals.get(REPLICAS - 1)[0]).isNotEqualTo(policy.totals.get(REPLICAS - 1)[2]);

    // the next decision asks again: a weight that changed between decisions is seen
    policy.totals.clear();
    asked.set(0);
    queueWeight[0] = 7.0;
    router.route(request("q-1", prompt(64, 2)).build());
    assertThat(asked.get()).isEqualTo(terms);
    for (double[] t : policy.totals) {
      assertThat(t[0]).isEqualTo(t[1]);
    }
  }

  @Test
  void aDecisionEvaluatesEachTermOncePerCandidate() {
    AtomicInteger calls = new AtomicInteger();
    Scorer counted = new Scorer() {
      @Override
      public String name() {
        return "counted";
      }

      @Override
      public double costMillis(Request request, CandidateView candidate) {
        calls.incrementAndGet();
        return candidate.estimatedQueueMillis();
      }
    };
    List<Scorer> terms = new ArrayList<>(CostTerms.standard(CostModel.defaults()));
    terms.add(counted);
    Ranking policy = new Ranking();
    policy.weights = name -> 2.0;
    policy.reference = policy.weights;
    policy.other = name -> 1.0;
    Router router = Router.newBuilder().seed(1).policy(policy).costTerms(terms).build();
    for (int r = 0; r < REPLICAS; r++) {
      router.onSnapshot(TestData.ready("r" + r).waitingRequests(r % 3).build());
    }
    RoutingDecision d = router.route(request("q-0", prompt(64, 1)).build());
    assertThat(d.isRouted()).isTrue();
    assertThat(d.cost().millis("counted")).isPresent();
    assertThat(calls.get()).isEqualTo(REPLICAS);
  }
}
