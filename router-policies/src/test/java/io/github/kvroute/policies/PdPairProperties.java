package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * On a disaggregated fleet, every pair-routing policy (hybrid-cost's pair ranking, pd-split and the
 * baselines on each pool) never pairs a decode replica that cannot hold the request's KV, and routes
 * whenever one can.
 */
class PdPairProperties {
  private static final List<String> POLICIES = List.of("hybrid-cost", "pd-split", "cache-aware",
      "power-of-two", "round-robin", "random", "kv-overlap", "weighted-score");

  record Fleet(List<CandidateView> views, int promptTokens) {}

  @Property(tries = 300)
  void aPairIsNeverChosenWhoseDecodeReplicaCannotHoldTheRequest(@ForAll("fleets") Fleet fleet,
      @ForAll("policies") String policy, @ForAll long seed) {
    Request request = TestRequests.request(fleet.promptTokens, (int) (seed & 0xff));
    long need = (long) request.promptTokens() + request.plannedOutputTokens();
    RoutingContext ctx = FixedRoutingContext.of(request, fleet.views, seed);

    RoutingDecision d = Policies.create(policy).route(ctx);

    boolean anyFits = fleet.views.stream().anyMatch(v -> v.role() == ReplicaRole.DECODE
        && (v.freeKvTokens().isEmpty() || v.freeKvTokens().getAsLong() >= need));
    if (d.isRouted()) {
      CandidateView decode = fleet.views.stream()
          .filter(v -> v.replicaId().equals(d.replicaId())).findFirst().orElseThrow();
      assertThat(decode.role()).isEqualTo(ReplicaRole.DECODE);
      assertThat(d.prefillReplicaId()).isPresent();
      if (decode.freeKvTokens().isPresent()) {
        assertThat(decode.freeKvTokens().getAsLong()).isGreaterThanOrEqualTo(need);
      }
    } else {
      assertThat(anyFits).as("rejected although a decode replica fits: %s", d).isFalse();
      assertThat(d.reason()).isEqualTo(RejectReason.OVERLOADED);
    }
  }

  @Provide
  Arbitrary<String> policies() {
    return Arbitraries.of(POLICIES);
  }

  @Provide
  Arbitrary<Fleet> fleets() {
    Arbitrary<List<Double>> prefill =
        Arbitraries.doubles().between(0, 2_000).list().ofMinSize(1).ofMaxSize(4);
    Arbitrary<List<Long>> decode =
        Arbitraries.longs().between(-1, 20_000).list().ofMinSize(1).ofMaxSize(5);
    Arbitrary<Integer> prompt = Arbitraries.integers().between(16, 12_000);
    return Combinators.combine(prefill, decode, prompt).as((ps, ds, tokens) -> {
      List<CandidateView> views = new ArrayList<>();
      for (int i = 0; i < ps.size(); i++) {
        views.add(CandidateView.newBuilder().replicaId("p" + i).role(ReplicaRole.PREFILL)
            .estimatedQueueMillis(ps.get(i)).build());
      }
      for (int i = 0; i < ds.size(); i++) {
        CandidateView.Builder b = CandidateView.newBuilder().replicaId("d" + i)
            .role(ReplicaRole.DECODE).inFlight(i % 3, 100L * (i % 3));
        if (ds.get(i) >= 0) {
          b.freeKvTokens(ds.get(i));
        }
        views.add(b.build());
      }
      return new Fleet(views, tokens);
    });
  }
}
