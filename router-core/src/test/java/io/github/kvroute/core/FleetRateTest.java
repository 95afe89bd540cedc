package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Replicas rank by the fleet's median prefill rate unless their own differs from it by more than
 * {@link FleetRate#SAME_SPEED_RATIO}, and always with other routers on the fleet: learnt through
 * the router from outcomes with queue times.
 */
class FleetRateTest {
  private static final List<String> IDS = List.of("r0", "r1", "r2");
  private final ManualTicker ticker = new ManualTicker();
  private final TargetPolicy policy = new TargetPolicy();
  private Router router = Router.newBuilder().policy(policy).ticker(ticker).seed(5).build();
  private int requests;

  /** Routes to {@link #target} whenever it is a candidate. */
  private static final class TargetPolicy implements RoutingPolicy {
    volatile String target;

    @Override
    public String name() {
      return "target";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      for (CandidateView c : context.candidates()) {
        if (c.replicaId().equals(target)) {
          return RoutingDecision.routed(c, CostBreakdown.empty());
        }
      }
      return context.noCandidates();
    }
  }

  /** Every replica reports (the pool refreshes on reports); then a second passes. */
  private void reportAll() {
    for (String id : IDS) {
      router.onSnapshot(queued(id, 0));
    }
    ticker.advanceMillis(FleetRate.REFRESH_MILLIS);
  }

  /** {@code replicaId} learns a prefill cost of {@code msPerToken} (20 ms overhead, 30 ms queued). */
  private void learn(String replicaId, double msPerToken) {
    policy.target = replicaId;
    for (int i = 0; i < Calibration.MIN_SAMPLES; i++) {
      Request r = request("q-" + requests, prompt(1_000, requests++)).build();
      RoutingDecision d = router.route(r);
      assertThat(d.replicaId()).isEqualTo(replicaId);
      long ttftMicros = Math.round((30 + 20 + 1_000 * msPerToken) * 1_000);
      router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).cachedTokens(0)
          .queueTime(Duration.ofMillis(30)).ttft(Duration.ofNanos(ttftMicros * 1_000)).build());
    }
  }

  private ReplicaStatus status(String replicaId) {
    return router.replicas().stream().filter(s -> s.replicaId().equals(replicaId)).findFirst()
        .orElseThrow();
  }

  private double rankedRate(String replicaId) {
    return status(replicaId).prefillMillisPerToken();
  }

  @Test
  void replicasWhoseRatesDifferByLessThanTheDeadZoneAllRankByTheMedian() {
    reportAll();
    learn("r0", 0.09);
    learn("r1", 0.10);
    learn("r2", 0.12);
    reportAll();

    for (String id : IDS) {
      assertThat(rankedRate(id)).as(id).isCloseTo(0.10, within(1e-9));
    }
    assertThat(status("r2").learntPrefillMillisPerToken()).as("its own evidence is kept")
        .hasValueCloseTo(0.12, within(1e-9));
  }

  @Test
  void aReplicaSlowerThanTheDeadZoneKeepsItsDifferenceLessTheZone() {
    reportAll();
    learn("r0", 0.10);
    learn("r1", 0.10);
    learn("r2", 0.50);
    reportAll();

    assertThat(rankedRate("r0")).isCloseTo(0.10, within(1e-9));
    assertThat(rankedRate("r2")).isCloseTo(0.50 / FleetRate.SAME_SPEED_RATIO, within(1e-9));
  }

  @Test
  void withOtherRoutersOnTheFleetEveryLearntRateRanksAsTheMedian() {
    router = Router.newBuilder().policy(policy).ticker(ticker).seed(5).peerRouters(2).build();
    reportAll();
    double prior = router.costModel().prefillMillisPerToken();
    learn("r0", 0.10);
    learn("r1", 0.02);
    reportAll();
    assertThat(rankedRate("r0")).isCloseTo(0.06, within(1e-9));
    assertThat(rankedRate("r1")).as("five times faster: alone it would keep most of that")
        .isCloseTo(0.06, within(1e-9));
    assertThat(rankedRate("r2")).as("still learning").isEqualTo(prior);
    assertThat(status("r1").learntPrefillMillisPerToken()).as("its own evidence is kept")
        .hasValueCloseTo(0.02, within(1e-9));
  }

  @Test
  void aReplicaStillLearningKeepsThePriorAndALoneLearntOneItsOwnRate() {
    reportAll();
    double prior = router.costModel().prefillMillisPerToken();
    assertThat(rankedRate("r1")).as("nothing learnt yet").isEqualTo(prior);
    assertThat(status("r1").learntPrefillMillisPerToken()).isEmpty();

    learn("r0", 0.30);
    reportAll();
    assertThat(rankedRate("r0")).as("one learnt rate: no fleet to judge it by").isCloseTo(0.30,
        within(1e-9));
    assertThat(rankedRate("r1")).as("still learning").isEqualTo(prior);
  }

  @Test
  void thePoolIsRecomputedAtMostOncePerRefreshInterval() {
    reportAll();
    learn("r0", 0.10);
    reportAll();
    router.onSnapshot(queued("r0", 0));
    learn("r1", 0.40);
    ticker.advanceMillis(FleetRate.REFRESH_MILLIS / 2);
    router.onSnapshot(queued("r0", 0));
    assertThat(rankedRate("r0")).as("refreshed half an interval ago: r0 alone in the pool")
        .isCloseTo(0.10, within(1e-9));

    ticker.advanceMillis(FleetRate.REFRESH_MILLIS / 2);
    router.onSnapshot(queued("r0", 0));
    assertThat(rankedRate("r0")).as("median 0.25: r0 is 2.5x faster, 2x beyond the zone")
        .isCloseTo(0.25 / 2.5 * FleetRate.SAME_SPEED_RATIO, within(1e-9));
  }
}
