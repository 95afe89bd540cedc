package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.Scorer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fixed contexts estimate with the router's own implementation: containment and clamping included. */
class RoutingContextsTest {
  private static final Request REQUEST = request("q-1", prompt(1_000, 1)).build();

  private static Scorer term(String name, double millis) {
    return new Scorer() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public double costMillis(Request request, CandidateView candidate) {
        if (Double.isNaN(millis) && name.equals("throws")) {
          throw new IllegalStateException("scorer bug");
        }
        return millis;
      }
    };
  }

  @Test
  void throwingNanAndNegativeTermsCountZeroAsInTheRouter() {
    CandidateView idle = CandidateView.newBuilder().replicaId("idle").estimatedQueueMillis(40).build();
    RoutingContext ctx = RoutingContexts.fixed(REQUEST, List.of(idle), RandomSource.seeded(1), 0,
        List.of(CostTerms.queue(), term("throws", Double.NaN), term("nan", Double.NaN),
            term("negative", -5), CostTerms.prefill()));

    CostBreakdown e = ctx.estimate(idle);

    assertThat(e.asMap()).containsExactly(
        java.util.Map.entry("queue", 40.0), java.util.Map.entry("throws", 0.0),
        java.util.Map.entry("nan", 0.0), java.util.Map.entry("negative", 0.0),
        java.util.Map.entry("prefill", 20 + 0.035 * 1_000));
    assertThat(ctx.estimateMillis(idle)).isEqualTo(e.totalMillis());
  }

  @Test
  void theWeightedEstimateWeighsEachTermByItsName_asTheBreakdownWould() {
    CandidateView busy = CandidateView.newBuilder().replicaId("busy").estimatedQueueMillis(40)
        .build();
    RoutingContext ctx = RoutingContexts.fixed(REQUEST, List.of(busy), RandomSource.seeded(1), 0,
        List.of(CostTerms.queue(), term("own", 7), CostTerms.prefill()));
    java.util.function.ToDoubleFunction<String> weights =
        name -> name.equals("queue") ? 3 : name.equals("prefill") ? 0.5 : 1;
    RoutingContext byBreakdown = new DefaultsOnly(ctx);

    double weighted = ctx.weightedEstimateMillis(busy, weights);

    assertThat(weighted).isEqualTo(3 * 40 + 7 + 0.5 * (20 + 0.035 * 1_000));
    assertThat(byBreakdown.weightedEstimateMillis(busy, weights))
        .as("the interface's default, from the breakdown").isEqualTo(weighted);
    assertThat(ctx.weightedEstimateMillis(busy, name -> 1)).isEqualTo(ctx.estimateMillis(busy));
  }

  /** A context that keeps the interface's default {@code weightedEstimateMillis}. */
  private record DefaultsOnly(RoutingContext base) implements ForwardingContext {}

  @Test
  void anInfiniteTermVetoesTheCandidateAsInTheRouter() {
    CandidateView vetoed = CandidateView.newBuilder().replicaId("vetoed").build();
    CandidateView kept = CandidateView.newBuilder().replicaId("kept").build();
    Scorer veto = new Scorer() {
      @Override
      public String name() {
        return "veto";
      }

      @Override
      public double costMillis(Request request, CandidateView candidate) {
        return candidate == vetoed ? Double.POSITIVE_INFINITY : 1;
      }
    };
    RoutingContext ctx = RoutingContexts.fixed(REQUEST, List.of(vetoed, kept),
        RandomSource.seeded(1), 0, List.of(CostTerms.queue(), veto));

    assertThat(ctx.candidates()).containsExactly(kept);
    assertThat(ctx.estimateMillis(vetoed)).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(ctx.estimate(vetoed).millis("veto")).hasValue(Double.MAX_VALUE);
  }

  @Test
  void standardTermsUnderTheCostModelAndViewsInTheirRoleLists() {
    CandidateView mixed = CandidateView.newBuilder().replicaId("m").build();
    CandidateView prefill = CandidateView.newBuilder().replicaId("p").role(ReplicaRole.PREFILL).build();
    CandidateView decode = CandidateView.newBuilder().replicaId("d").role(ReplicaRole.DECODE).build();
    CostModel model = CostModel.newBuilder().staleAfterMillis(10).build();

    RoutingContext ctx = RoutingContexts.fixed(REQUEST, List.of(decode, mixed, prefill),
        RandomSource.seeded(1), 7, model);

    assertThat(ctx.candidates()).containsExactly(mixed);
    assertThat(ctx.prefillCandidates()).containsExactly(prefill);
    assertThat(ctx.decodeCandidates()).containsExactly(decode);
    assertThat(ctx.nowNanos()).isEqualTo(7);
    assertThat(ctx.estimate(mixed).asMap()).containsOnlyKeys(
        CostTerms.standard(model).stream().map(Scorer::name).toArray(String[]::new));
  }

  @Test
  void nullsAreRejectedByName() {
    assertThatNullPointerException().isThrownBy(() -> RoutingContexts.fixed(REQUEST, null,
        RandomSource.seeded(1), 0, CostModel.defaults())).withMessageContaining("views");
  }
}
