package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.Scorer;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Scale;

/** Sticky sessions with a per-turn escape. */
class SessionAffinityPolicyProperties {
  private final ManualTicker ticker = new ManualTicker();

  private static Request turn(String session, int n) {
    return TestRequests.request(500, 12).toBuilder().id(session + "-" + n).sessionId(session)
        .build();
  }

  private String route(RoutingPolicy p, Request r, Map<String, Double> costs,
      CandidateView... views) {
    Scorer queue = new Scorer() {
      @Override
      public String name() {
        return "queue";
      }

      @Override
      public double costMillis(Request request, CandidateView c) {
        return costs.get(c.replicaId());
      }
    };
    RoutingDecision d = p.route(FixedRoutingContext.of(r, List.of(views), RandomSource.seeded(1),
        ticker.read(), List.of(queue)));
    assertThat(d.cost().totalMillis()).isEqualTo(costs.get(d.replicaId()));
    return d.replicaId();
  }

  @Property(tries = 300)
  void escapeTriggersExactlyWhenStayingCostsMoreThanTheRecompute(
      @ForAll @DoubleRange(min = 0, max = 1_000) double stickyCost,
      @ForAll @DoubleRange(min = 0, max = 1_000) double altCost,
      @ForAll @DoubleRange(min = 0, max = 1_000) double otherCost,
      @ForAll @IntRange(min = 0, max = 8_000) int stickyMatched,
      @ForAll @IntRange(min = 0, max = 8_000) int altMatched,
      @ForAll @DoubleRange(min = 0.001, max = 0.2) @Scale(4) double altRate) {
    RoutingPolicy p = Policies.create("session-affinity", Map.of(), ticker);
    CandidateView s = view("s", stickyMatched, 0.035);
    CandidateView a = view("a", altMatched, altRate);
    CandidateView o = view("o", 0, 0.035);
    // turn 1: s is the cheapest, so the session sticks to it
    assertThat(route(p, turn("chat", 1), Map.of("s", 0.0, "a", 1.0, "o", 1.0), s, a, o))
        .isEqualTo("s");
    // turn 2: the best alternative is the cheaper of a and o (first on ties)
    boolean aIsBest = altCost <= otherCost;
    CandidateView best = aIsBest ? a : o;
    double bestCost = aIsBest ? altCost : otherCost;
    double recompute = Math.max(0, stickyMatched - best.matchedTokens())
        * best.prefillMillisPerToken();
    String chosen = route(p, turn("chat", 2),
        Map.of("s", stickyCost, "a", altCost, "o", otherCost), s, a, o);
    boolean escape = stickyCost - bestCost > recompute;
    assertThat(chosen).isEqualTo(escape ? best.replicaId() : "s");
    assertThat(SessionAffinityPolicy.escapes(s, stickyCost, best, bestCost)).isEqualTo(escape);
    // turn 3 sticks to wherever turn 2 went, when that is now cheapest
    String third = route(p, turn("chat", 3), Map.of("s", 5.0, "a", 5.0, "o", 5.0), s, a, o);
    assertThat(third).isEqualTo(chosen);
  }

  @Example
  void worked() {
    RoutingPolicy p = Policies.create("session-affinity", Map.of(), ticker);
    // s holds 4,000 tokens of the conversation; a holds none; at 0.06 ms/token a recomputes 240 ms
    CandidateView s = view("s", 4_000, 0.035);
    CandidateView a = view("a", 0, 0.06);
    assertThat(route(p, turn("x", 1), Map.of("s", 10.0, "a", 300.0), s, a)).isEqualTo("s");
    // staying costs 500 vs 300: 200 more, below the 240 ms recompute: stay
    assertThat(route(p, turn("x", 2), Map.of("s", 500.0, "a", 300.0), s, a)).isEqualTo("s");
    // 540.1 vs 300: 240.1 more: escape, and re-stick
    assertThat(route(p, turn("x", 3), Map.of("s", 540.1, "a", 300.0), s, a)).isEqualTo("a");
    assertThat(route(p, turn("x", 4), Map.of("s", 305.0, "a", 300.0), s, a)).isEqualTo("a");
  }

  @Example
  void goneStickyReplicaReSticksToTheBest() {
    RoutingPolicy p = Policies.create("session-affinity", Map.of(), ticker);
    CandidateView s = view("s", 1_000, 0.035);
    CandidateView a = view("a", 0, 0.035);
    CandidateView b = view("b", 0, 0.035);
    Map<String, Double> costs = Map.of("s", 1.0, "a", 3.0, "b", 2.0);
    assertThat(route(p, turn("y", 1), costs, s, a, b)).isEqualTo("s");
    assertThat(route(p, turn("y", 2), costs, a, b)).isEqualTo("b");
    // s is back (restarted, cold) and 1 ms cheaper; b now holds the conversation (1,000 tokens,
    // 35 ms to recompute on s): stay on b
    assertThat(route(p, turn("y", 3), costs, view("s", 0, 0.035), a, view("b", 1_000, 0.035)))
        .isEqualTo("b");
  }

  @Example
  void requestsWithoutSessionTakeTheLeastEstimatedCost() {
    RoutingPolicy p = Policies.create("session-affinity", Map.of(), ticker);
    Request plain = TestRequests.request(500, 13);
    Map<String, Double> costs = Map.of("a", 9.0, "b", 4.0, "c", 4.0);
    assertThat(route(p, plain, costs, view("a", 0, 1), view("b", 0, 1), view("c", 0, 1)))
        .isEqualTo("b");
  }

  @Example
  void sessionsExpireAfterTheirTtlOnTheRoutersTicker() {
    RoutingPolicy p = Policies.create("session-affinity", Map.of("ttl_seconds", "10"), ticker);
    CandidateView s = view("s", 1_000, 0.035);
    CandidateView a = view("a", 0, 0.035);
    assertThat(route(p, turn("z", 1), Map.of("s", 1.0, "a", 2.0), s, a)).isEqualTo("s");
    ticker.advanceSeconds(9);
    assertThat(route(p, turn("z", 2), Map.of("s", 20.0, "a", 2.0), s, a)).isEqualTo("s");
    ticker.advanceSeconds(11);
    // forgotten: a new session goes to the least cost
    assertThat(route(p, turn("z", 3), Map.of("s", 20.0, "a", 2.0), s, a)).isEqualTo("a");
  }

  private static CandidateView view(String id, int matchedTokens, double msPerToken) {
    return CandidateView.newBuilder().replicaId(id).matched(matchedTokens / 16, matchedTokens)
        .prefill(20, msPerToken).build();
  }
}
