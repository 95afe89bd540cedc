package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class KvWaitTest {
  /** A 4,000-token prompt planning 1,000 output tokens. */
  private static Request.Builder request() {
    return TestData.request("r", TestData.prompt(4_000, 1)).maxOutputTokens(1_000);
  }

  private static Request due() {
    return request().ttftBudget(Duration.ofMillis(500)).build();
  }

  private static ReplicaSnapshot waiting(int n) {
    return TestData.ready("a").waitingRequests(n).build();
  }

  /** A reading whose finished sends free {@code perSecond} KV tokens per second. */
  private static LedgerReading freeing(double perSecond) {
    LedgerReading r = new LedgerReading();
    r.freedPerSecond = perSecond;
    return r;
  }

  /** A reading that also saw {@code peers} other routers' worth of traffic. */
  private static LedgerReading freeing(double perSecond, double peers) {
    LedgerReading r = freeing(perSecond);
    r.peers = peers;
    return r;
  }

  @Test
  void atARouterAlone_theMissingKvAndTheRequestsWaitingAheadOverTheFreedRate() {
    // 4,000 prompt - 1,000 matched + 1,000 output = 4,000 needed, 2,000 free: 2,000 missing,
    // and 3 waiting ahead x 4,000 each = 14,000 at 10,000 per second
    double ms = KvWait.millis(request().build(), 1_000, 2_000, 2_000, waiting(3), freeing(10_000));

    assertThat(ms).isCloseTo(1_400.0, within(1e-9));
  }

  @Test
  void atARouterAlone_beforeAQueueForms_withOrWithoutADeadline() {
    assertThat(KvWait.millis(request().build(), 0, 2_000, 2_000, waiting(0), freeing(10_000)))
        .isCloseTo(300.0, within(1e-9));
    assertThat(KvWait.millis(due(), 0, 2_000, 2_000, waiting(0), freeing(10_000, 0)))
        .isCloseTo(300.0, within(1e-9));
    // a report without a waiting count: nobody known to be ahead
    assertThat(KvWait.millis(request().build(), 0, 2_000, 2_000, TestData.ready("a").build(),
        freeing(10_000))).isCloseTo(300.0, within(1e-9));
  }

  @Test
  void atARouterAlone_sendsBeyondTheFreeKvWaitAhead() {
    // the KV this router's sends since the report add is 1,000 tokens more than it showed free
    assertThat(KvWait.millis(request().build(), 0, 0, -1_000, waiting(0), freeing(10_000)))
        .isCloseTo(600.0, within(1e-9));
    // host input at the extremes saturates instead of wrapping to a negative wait
    assertThat(KvWait.millis(due(), 0, 0, Long.MIN_VALUE, waiting(Integer.MAX_VALUE),
        freeing(10_000))).isPositive();
  }

  @Test
  void withPeers_onlyOnceAQueueHasFormed_andOnlyTheRequestsOwnKv() {
    // the freed rate scaled by the peers undercounts where their traffic dominates
    assertThat(KvWait.millis(due(), 0, 2_000, 2_000, waiting(0), freeing(10_000, 2))).isZero();
    assertThat(KvWait.millis(due(), 0, 2_000, 2_000, waiting(0), freeing(10_000, 0.5))).isZero();
    assertThat(KvWait.millis(due(), 0, 2_000, 2_000, waiting(3), freeing(10_000, 2)))
        .isCloseTo(300.0, within(1e-9));
    // the free count stops at zero there: the request's own 5,000 tokens
    assertThat(KvWait.millis(request().build(), 0, 0, -1_000, waiting(1), freeing(10_000, 2)))
        .isCloseTo(500.0, within(1e-9));
    // a report without a waiting count counts as one with requests waiting
    assertThat(KvWait.millis(request().build(), 0, 2_000, 2_000, TestData.ready("a").build(),
        freeing(10_000, 2))).isCloseTo(300.0, within(1e-9));
  }

  @Test
  void noWaitWhenItFitsOrNothingHasBeenFreedYet() {
    assertThat(KvWait.millis(due(), 0, 5_000, 5_000, waiting(5), freeing(10_000))).isZero();
    assertThat(KvWait.millis(due(), 1_000, 4_000, 4_000, waiting(5), freeing(10_000))).isZero();
    assertThat(KvWait.millis(due(), 0, 2_000, 2_000, waiting(5), freeing(0))).isZero();
  }

  /**
   * The queue estimate a router gives replica {@code r0} for a 4,000-token request after one of
   * its sends there finished (so it has a freed rate) and a report then showed the KV 95% held with
   * {@code waiting} requests waiting.
   */
  private static double queueThroughTheRouter(int waiting) {
    return queueThroughTheRouter(waiting, request().build(), Router.newBuilder());
  }

  /** As above, for {@code next} through a router {@code builder} configures. */
  private static double queueThroughTheRouter(int waiting, Request next, Router.Builder builder) {
    ManualTicker ticker = new ManualTicker();
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = builder.policy(policy).ticker(ticker).build();
    router.onSnapshot(TestData.ready("r0").waitingRequests(0).kvUsage(0.2, 1_000)
        .kvBlockSizeTokens(16).observedAtNanos(0).build());
    Request first = TestData.request("first", TestData.prompt(1_000, 2)).maxOutputTokens(100)
        .build();
    RoutingDecision d = router.route(first);
    ticker.advanceMillis(1_000);
    router.onOutcome(TestData.outcome(first, d, OutcomeStatus.SUCCESS).build());
    // 950 of 1,000 blocks of 16 tokens held: 800 tokens free
    router.onSnapshot(TestData.ready("r0").waitingRequests(waiting).kvUsage(0.95, 1_000)
        .kvBlockSizeTokens(16).observedAtNanos(ticker.read()).build());

    router.route(next);

    return policy.views.get("r0").estimatedQueueMillis();
  }

  @Test
  void throughTheRouter_aFullKvDelaysTheNextRequest_atARouterAloneBeforeAQueueForms() {
    assertThat(queueThroughTheRouter(0)).isPositive();
    assertThat(queueThroughTheRouter(1)).isGreaterThan(queueThroughTheRouter(0));
  }

  @Test
  void throughTheRouter_withPeersOnlyOnceAQueueHasFormed() {
    assertThat(queueThroughTheRouter(0, due(), Router.newBuilder().peerRouters(2))).isZero();
    assertThat(queueThroughTheRouter(0, request().build(), Router.newBuilder().peerRouters(2)))
        .isZero();
    assertThat(queueThroughTheRouter(1, due(), Router.newBuilder().peerRouters(2))).isPositive();
  }
}
