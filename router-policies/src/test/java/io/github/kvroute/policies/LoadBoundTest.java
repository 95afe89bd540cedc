package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * A router alone skips a replica past {@code load_bound} times the mean of its requests in flight
 * while it waits; the least loaded candidate is always within the bound, and with peers the bound
 * does not apply.
 */
class LoadBoundTest {
  private static final int PROMPT = 4_096;
  private static final int HOT = 7;

  /**
   * replica-0 holds the whole prompt, has 10 requests in flight and a wait of {@code holderWait}
   * ms; the others hold nothing, 1 request each, no wait. The prompt's prefill (about 163 ms) is
   * more than the holder's wait, so the ranking alone keeps the holder.
   */
  private static List<CandidateView> fleet(double holderWait) {
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      CandidateView.Builder b = CandidateView.newBuilder().replicaId("replica-" + i)
          .prefill(20, 0.035).cache(0, 1_000_000).inFlight(i == 0 ? 10 : 1, 0);
      if (i == 0) {
        b.matched(PROMPT / 16, PROMPT).estimatedQueueMillis(holderWait);
      }
      views.add(b.build());
    }
    return views;
  }

  /** The holder waits 120 ms: past the bound, it is skipped. */
  private static List<CandidateView> fleet() {
    return fleet(120);
  }

  private static RoutingContext context(List<CandidateView> views) {
    Request request = TestRequests.request(PROMPT, HOT);
    return FixedRoutingContext.of(request, views, 1);
  }

  @Test
  void theHolderPastTwiceTheMeanIsSkipped() {
    // mean with the request at hand: (10 + 1 + 1 + 1) / 3 = 4.33; the bound is ceil(8.67) = 9
    assertThat(LoadBound.limit(fleet(), false, 2)).isEqualTo(9);
    assertThat(LoadBound.over(fleet().get(0), 9)).isTrue();
    assertThat(LoadBound.over(fleet().get(1), 9)).isFalse();

    RoutingPolicy bounded = Policies.create("hybrid-cost", Map.of("externality", "none"));
    RoutingPolicy unbounded = Policies.create("hybrid-cost",
        Map.of("externality", "none", "load_bound", "0"));

    assertThat(bounded.route(context(fleet())).replicaId()).isNotEqualTo("replica-0");
    assertThat(unbounded.route(context(fleet())).replicaId()).isEqualTo("replica-0");
  }

  @Test
  void aHolderPastTheBoundThatDoesNotWaitKeepsItsTraffic() {
    RoutingPolicy bounded = Policies.create("hybrid-cost", Map.of("externality", "none"));

    assertThat(LoadBound.over(fleet(LoadBound.MIN_WAIT_MILLIS).get(0), 9)).isFalse();
    assertThat(bounded.route(context(fleet(LoadBound.MIN_WAIT_MILLIS))).replicaId())
        .isEqualTo("replica-0");
  }

  @Test
  void aLooserBoundKeepsTheHolder() {
    RoutingPolicy loose = Policies.create("hybrid-cost",
        Map.of("externality", "none", "load_bound", "3"));

    assertThat(loose.route(context(fleet())).replicaId()).isEqualTo("replica-0");
  }

  @Test
  void withPeersTheBoundDoesNotApply() {
    for (int seed = 0; seed < 20; seed++) {
      RoutingPolicy bounded = Policies.create("hybrid-cost", Map.of("externality", "none"));
      RoutingPolicy unbounded = Policies.create("hybrid-cost",
          Map.of("externality", "none", "load_bound", "0"));
      Request request = TestRequests.request(PROMPT, seed);

      assertThat(bounded.route(withPeers(request)).replicaId())
          .isEqualTo(unbounded.route(withPeers(request)).replicaId());
    }
  }

  private static RoutingContext withPeers(Request request) {
    return FixedRoutingContext.withPeerRouters(FixedRoutingContext.of(request, fleet(), 1), 2);
  }

  @Test
  void staleCandidatesLeftOutAreLeftOutOfTheMeanToo() {
    List<CandidateView> views = new ArrayList<>(fleet());
    views.add(CandidateView.newBuilder().replicaId("stale").telemetryStale(true)
        .inFlight(0, 0).build());

    assertThat(LoadBound.limit(views, true, 2)).isEqualTo(9);
    assertThat(LoadBound.limit(views, false, 2)).isEqualTo(7);
  }

  @Test
  void offIsNoLimit_andAFactorUnderOneIsAnError() {
    assertThat(LoadBound.limit(fleet(), false, 0)).isInfinite();

    ConfigOrError<RoutingPolicy> bad = Policies.tryCreate("hybrid-cost",
        Map.of("load_bound", "0.5"));
    assertThat(bad.isOk()).isFalse();
    assertThat(bad.error()).contains("load_bound: 0.5 (expected: 0 (off) or a number in [1, 100])");
    assertThat(Policies.tryCreate("hybrid-cost", Map.of("load_bound", "101")).error())
        .contains("load_bound: 101 (expected: a number in [0, 100])");
  }

  @Property
  void theLeastLoadedCandidateIsAlwaysWithinTheBound(
      @ForAll @Size(min = 1, max = 64) List<@IntRange(min = 0, max = 10_000) Integer> inFlight,
      @ForAll @DoubleRange(min = 1, max = 100) double factor) {
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < inFlight.size(); i++) {
      views.add(CandidateView.newBuilder().replicaId("r" + i).inFlight(inFlight.get(i), 0)
          .estimatedQueueMillis(1_000).build());
    }
    double limit = LoadBound.limit(views, false, factor);
    CandidateView least = views.stream()
        .min((a, b) -> Integer.compare(a.inFlightRequests(), b.inFlightRequests())).orElseThrow();

    assertThat(LoadBound.over(least, limit)).isFalse();
  }
}
