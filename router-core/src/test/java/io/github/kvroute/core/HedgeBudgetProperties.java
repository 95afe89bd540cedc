package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/** Hedges never exceed the configured budget, whatever the order of advice, hedges and outcomes. */
class HedgeBudgetProperties {
  @Property(tries = 300)
  void hedgesNeverExceedTheBudget(@ForAll @DoubleRange(min = 0.01, max = 0.5) double budget,
      @ForAll List<@IntRange(min = 0, max = 2) Integer> calls) {
    HedgeAdvisor a = HedgeAdvisor.newBuilder().budget(budget).build();
    Request request = Request.newBuilder().id("q").model("m").prompt(PromptKey.unhashed(10))
        .build();
    RoutingDecision routed = RoutingDecision.routed(CandidateView.newBuilder().replicaId("a")
        .build(), CostBreakdown.newBuilder().add("queue", 100).build());
    for (int c : calls) {
      switch (c) {
        case 0 -> a.advise(routed);
        case 1 -> a.startHedge(request);
        default -> a.onOutcome(100, 3_100, false);
      }
      assertThat((double) a.hedges()).isLessThanOrEqualTo(budget * a.advised() + 1e-9);
    }
  }
}
