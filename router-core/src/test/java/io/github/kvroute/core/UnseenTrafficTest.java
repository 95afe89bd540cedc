package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CandidateView;
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
    Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
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
  void withoutACounterPeerRoutersAreAssumedToSendAsMuchAsThisOne() {
    RecordingPolicy one = new RecordingPolicy(new LeastEstimatePolicy());
    RecordingPolicy three = new RecordingPolicy(new LeastEstimatePolicy());
    Router withOnePeer = Router.newBuilder().policy(one).ticker(ticker).peerRouters(1).build();
    Router withThreePeers = Router.newBuilder().policy(three).ticker(ticker).peerRouters(3).build();
    for (Router r : new Router[] {withOnePeer, withThreePeers}) {
      r.onSnapshot(ready("r0").estimatedQueueDelayMillis(0).build());
    }

    CandidateView a = null;
    CandidateView b = null;
    for (int i = 0; i < 20; i++) {
      ticker.advanceMillis(100);
      a = view(withOnePeer, one);
      b = view(withThreePeers, three);
    }
    RecordingPolicy lonely = new RecordingPolicy(new LeastEstimatePolicy());
    Router solo = Router.newBuilder().policy(lonely).ticker(ticker).build();
    solo.onSnapshot(ready("r0").estimatedQueueDelayMillis(0).build());

    assertThat(a.unseenArrivalsPerSecond()).isPositive();
    assertThat(b.unseenArrivalsPerSecond()).isCloseTo(3 * a.unseenArrivalsPerSecond(), within(1e-9));
    assertThat(view(solo, lonely).unseenArrivalsPerSecond()).as("no peers").isZero();
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
