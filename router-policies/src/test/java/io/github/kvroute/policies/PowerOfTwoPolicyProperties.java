package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.Scorer;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** SGLang's power_of_two: the chosen one is never the more loaded of the two samples. */
class PowerOfTwoPolicyProperties {
  private static final Request REQUEST = TestRequests.request(32, 2);

  @Property(tries = 300)
  void neverPicksTheMoreLoadedOfItsTwoSamples(
      @ForAll("fleets") List<CandidateView> fleet, @ForAll long seed) {
    Recording random = new Recording(RandomSource.seeded(seed));
    RoutingContext ctx = FixedRoutingContext.of(REQUEST, fleet, random, 0, List.<Scorer>of());
    String chosen = Policies.create("power-of-two").route(ctx).replicaId();
    int n = fleet.size();
    if (n == 1) {
      assertThat(chosen).isEqualTo(fleet.get(0).replicaId());
      return;
    }
    CandidateView a = fleet.get(random.ints.get(0));
    CandidateView b = fleet.get((random.ints.get(0) + 1 + random.ints.get(1)) % n);
    assertThat(a).isNotSameAs(b);
    boolean tokens = PowerOfTwoPolicy.hasTokenLoad(a) && PowerOfTwoPolicy.hasTokenLoad(b);
    long la = tokens ? a.estimatedOutstandingTokens() : a.inFlightRequests();
    long lb = tokens ? b.estimatedOutstandingTokens() : b.inFlightRequests();
    // never the more loaded of the two; SMG's `load1 <= load2` sends ties to the first sample
    assertThat(chosen).isEqualTo(la <= lb ? a.replicaId() : b.replicaId());
  }

  /** SMG's own edge cases (power_of_two.rs test_power_of_two_edge_cases). */
  @Example
  void tokenLoadsWhenBothKnownElseRequestCountsForBoth() {
    // both report tokens: A (10 requests, 1,000 tokens) beats B (2 requests, 100,000 tokens)
    assertThat(pick(view("a", 10, 1_000L), view("b", 2, 100_000L))).isEqualTo("a");
    // one lacks tokens: both compared by requests, 10 vs 2 -> B
    assertThat(pick(view("a", 10, 1_000L), view("b", 2, null))).isEqualTo("b");
    assertThat(pick(view("a", 2, null), view("b", 10, 1_000L))).isEqualTo("a");
    // neither: requests, 5 vs 3 -> B
    assertThat(pick(view("a", 5, null), view("b", 3, null))).isEqualTo("b");
  }

  private static String pick(CandidateView a, CandidateView b) {
    RoutingContext ctx = FixedRoutingContext.of(REQUEST, List.of(a, b), 3);
    return Policies.create("power-of-two").route(ctx).replicaId();
  }

  static CandidateView view(String id, int requests, Long tokens) {
    ReplicaSnapshot.Builder s = ReplicaSnapshot.newBuilder().replicaId(id).model("model");
    if (tokens != null) {
      s.queuedPrefillTokens(tokens);
    }
    return CandidateView.newBuilder().replicaId(id).snapshot(s.build()).inFlight(requests, 0)
        .estimatedOutstandingTokens(tokens == null ? 0 : tokens).build();
  }

  @Provide
  Arbitrary<List<CandidateView>> fleets() {
    Arbitrary<CandidateView> v = Combinators.combine(
        Arbitraries.integers().between(0, 20),
        Arbitraries.longs().between(0, 50_000).injectNull(0.3))
        .as((r, t) -> view("x", r, t));
    return v.list().ofMinSize(1).ofMaxSize(8).map(PowerOfTwoPolicyProperties::renumber);
  }

  private static List<CandidateView> renumber(List<CandidateView> views) {
    List<CandidateView> out = new ArrayList<>();
    for (int i = 0; i < views.size(); i++) {
      CandidateView v = views.get(i);
      boolean tokens = PowerOfTwoPolicy.hasTokenLoad(v);
      out.add(view("r" + i, v.inFlightRequests(), tokens ? v.estimatedOutstandingTokens() : null));
    }
    return out;
  }

  /** Records the two samples the policy draws. */
  static final class Recording implements RandomSource {
    final RandomSource inner;
    final List<Integer> ints = new ArrayList<>();

    Recording(RandomSource inner) {
      this.inner = inner;
    }

    @Override
    public long nextLong() {
      return inner.nextLong();
    }

    @Override
    public int nextInt(int bound) {
      int v = inner.nextInt(bound);
      ints.add(v);
      return v;
    }
  }
}
