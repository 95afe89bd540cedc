package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pooled views keep their replica from one decision to the next (so that a decision stores no
 * references it need not: MutableView's notes), but never the estimate: a view a later decision
 * leaves out of its candidates, asked about in that decision (by a policy that kept it, against
 * the contract), is estimated for the request in progress, not answered from the earlier one.
 */
class PooledViewTest {
  /** Keeps the first decision's views; in later ones, estimates them for the request at hand. */
  private static final class Keeping implements RoutingPolicy {
    final List<CandidateView> kept = new ArrayList<>();
    final List<double[]> later = new ArrayList<>();

    @Override
    public String name() {
      return "keeping";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      if (kept.isEmpty()) {
        kept.addAll(context.candidates());
      } else {
        for (CandidateView v : kept) {
          later.add(new double[] {context.estimateMillis(v), context.estimate(v).totalMillis(),
              CostTerms.prefillMillis(context.request(), v)});
        }
      }
      return RoutingDecision.routed(context.candidates().get(0), CostBreakdown.empty());
    }
  }

  @Test
  void aViewLeftOutOfALaterDecisionIsEstimatedForThatDecisionsRequest() {
    Keeping policy = new Keeping();
    Router router = Router.newBuilder().seed(1).policy(policy).build();
    router.onSnapshot(TestData.ready("r0").build());
    router.onSnapshot(TestData.ready("r1").build());
    router.route(request("short", prompt(64, 1)).build());
    assertThat(policy.kept).hasSize(2);

    router.onSnapshot(TestData.ready("r1").state(ReplicaState.DRAINING).build());
    router.route(request("long", prompt(6_400, 2)).build());

    assertThat(policy.later).hasSize(2);
    for (double[] v : policy.later) {
      // the total as the terms give it now, for the long prompt, not the short one's remembered
      assertThat(v[0]).isEqualTo(v[1]);
      assertThat(v[0]).isGreaterThanOrEqualTo(v[2]);
    }
    double[] leftOut = policy.later.get(1);
    double[] candidate = policy.later.get(0);
    assertThat(leftOut[2]).isEqualTo(candidate[2]);
  }
}
