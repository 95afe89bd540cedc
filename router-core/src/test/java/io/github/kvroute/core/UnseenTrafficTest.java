package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.LatencyTotals;
import io.github.kvroute.api.ReplicaSnapshot;
import org.junit.jupiter.api.Test;

/**
 * The staleness risk's inputs: traffic this router cannot see, estimated from a replica's
 * received-requests counter or, without one, from this router's own rate times its peers.
 */
class UnseenTrafficTest {
  private final ManualTicker ticker = new ManualTicker();
  private int requests;

  private CandidateView view(Router router, RecordingPolicy policy) {
    router.route(request("q-" + ++requests, prompt(1_000, requests)).build());
    return policy.views.get("r0");
  }

  @Test
  void receivedCounterGrowthBeyondOurOwnSendsIsOtherRoutersTraffic() {
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    // the host says it runs no other router: all counter growth beyond ours is unexplained, i.e. risk
    Router router = Router.newBuilder().policy(policy).ticker(ticker).peerRouters(0).build();
    router.onSnapshot(ready("r0").estimatedQueueDelayMillis(0).requestsReceivedTotal(100).build());
    view(router, policy);
    view(router, policy);
    ticker.advanceMillis(1_000);

    // 10 more received in one second, 2 of them ours: 8 per second from elsewhere
    router.onSnapshot(ready("r0").estimatedQueueDelayMillis(0).requestsReceivedTotal(110).build());
    ticker.advanceMillis(250);
    CandidateView v = view(router, policy);

    assertThat(v.unseenArrivalsPerSecond()).isCloseTo(8.0, within(1e-9));
    assertThat(v.snapshotAgeMillis()).isCloseTo(250.0, within(1e-9));
    double unseen = StalenessRiskTerm.expectedUnseenRequests(8.0, 250);
    assertThat(unseen).isCloseTo(2.0, within(1e-9));
    double factor = v.estimatedQueueMillis() > 0 ? CostModel.defaults().busyRiskFactor()
        : CostModel.defaults().idleRiskFactor();
    assertThat(policy.estimates.get("r0").millis("risk").getAsDouble())
        .isCloseTo(unseen * v.meanRequestCostMillis() * factor, within(1e-9))
        .isPositive();
  }

  @Test
  void aCounterThatWentBackwardsTeachesNothing() {
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
    router.onSnapshot(ready("r0").requestsReceivedTotal(100).build());
    ticker.advanceMillis(1_000);

    router.onSnapshot(ready("r0").requestsReceivedTotal(40).build());

    assertThat(view(router, policy).unseenArrivalsPerSecond()).isZero();
  }

  @Test
  void configuredPeersAreAssumedToSendLikeThisRouter_inTheReplayedQueue_notAsRisk() {
    double[] queues = new double[3];
    double[] unseen = new double[3];
    int[] peers = {0, 1, 3};
    for (int i = 0; i < 3; i++) {
      RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
      Router router =
          Router.newBuilder().policy(policy).ticker(ticker).peerRouters(peers[i]).build();
      router.onSnapshot(ready("r0").estimatedQueueDelayMillis(0).build());
      view(router, policy);
      CandidateView v = view(router, policy);
      queues[i] = v.estimatedQueueMillis();
      unseen[i] = v.unseenArrivalsPerSecond();
    }

    assertThat(queues[0]).as("one send of ours before this decision").isPositive();
    assertThat(queues[1]).isCloseTo(2 * queues[0], within(1e-9));
    assertThat(queues[2]).isCloseTo(4 * queues[0], within(1e-9));
    assertThat(unseen).as("nothing left unexplained").containsOnly(0.0);
  }

  @Test
  void unsetPeersAreMeasuredFromTheCounters_andThenCountInTheReplay() {
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
    long received = 0;
    router.onSnapshot(ready("r0").estimatedQueueDelayMillis(0).requestsReceivedTotal(0)
        .observedAtNanos(ticker.read()).build());
    for (int second = 0; second < 30; second++) {
      for (int i = 0; i < 4; i++) {
        ticker.advanceMillis(250);
        view(router, policy);
        received += 3; // ours plus two peers' sends
        router.onSnapshot(ready("r0").estimatedQueueDelayMillis(0).requestsReceivedTotal(received)
            .observedAtNanos(ticker.read()).build());
      }
    }

    assertThat(router.fleet().peers(ticker.read())).isCloseTo(2.0, within(0.2));
    view(router, policy); // one 1,000-token send after the last report: 20 + 0.035 x 1,000 = 55 ms
    CandidateView v = view(router, policy);
    assertThat(v.estimatedQueueMillis()).as("counted 1 + peers times").isCloseTo(3 * 55, within(11.0));
    assertThat(v.unseenArrivalsPerSecond()).as("explained by the peers").isCloseTo(0, within(0.5));
  }

  @Test
  void withoutAnArrivalsCounter_finishedPlusWaitingPlusRunningMeasureThePeers() {
    // a stock vLLM: no received-requests counter, but its queue-time histogram counts every finished
    // request, and every received request is finished, waiting or running
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
    long received = 0;
    router.onSnapshot(stock(0, 0, ticker.read()));
    for (int second = 0; second < 30; second++) {
      for (int i = 0; i < 4; i++) {
        ticker.advanceMillis(250);
        view(router, policy);
        received += 3; // ours plus two peers' sends
        router.onSnapshot(stock(received, second % 3, ticker.read()));
      }
    }

    assertThat(router.fleet().peers(ticker.read())).isCloseTo(2.0, within(0.2));
  }

  @Test
  void receivedIsTheCounterWhenReported_elseFinishedWaitingAndRunning_elseUnknown() {
    assertThat(Fleet.receivedTotal(ready("r0").requestsReceivedTotal(42).build())).isEqualTo(42);
    assertThat(Fleet.receivedTotal(stock(15, 2, 0))).isEqualTo(15);
    assertThat(Fleet.receivedTotal(ready("r0").waitingRequests(1).runningRequests(1).build()))
        .as("no finished count").isEqualTo(-1);
  }

  /**
   * A stock vLLM report after {@code received} requests, {@code waiting} of them waiting and one
   * running: the rest finished.
   */
  private static ReplicaSnapshot stock(long received, int waiting, long observedAt) {
    int running = received > waiting ? 1 : 0;
    long finished = received - waiting - running;
    if (finished < 0) {
      waiting = (int) received;
      running = 0;
      finished = 0;
    }
    return ready("r0").waitingRequests(waiting).runningRequests(running)
        .queueTime(new LatencyTotals(0.01 * finished, finished)).observedAtNanos(observedAt).build();
  }

  @Test
  void aSteadyStreamReadsAsItsRate() {
    RateEstimator rate = new RateEstimator(10.0);
    long t = 0;
    for (int i = 0; i < 1_000; i++) {
      t += 100_000_000L;
      rate.record(t);
    }

    assertThat(rate.perSecond(t)).isCloseTo(10.0, within(0.6));
    assertThat(rate.perSecond(t + 10_000_000_000L)).as("decays by e after tau")
        .isCloseTo(rate.perSecond(t) / Math.E, within(1e-9));
    assertThat(new RateEstimator(10.0).perSecond(t)).isZero();
  }
}
