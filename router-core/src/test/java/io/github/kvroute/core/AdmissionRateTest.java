package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.LatencyTotals;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.ReplicaSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The admission rate of a saturated replica, and the wait it implies where the KV is full. */
class AdmissionRateTest {
  private static final long S = 1_000_000_000L;

  /** A report with {@code firsts} first tokens in the TTFT histogram so far. */
  private static ReplicaSnapshot report(long firsts, int waiting, double kvUse) {
    return builder(firsts, waiting, kvUse).build();
  }

  private static ReplicaSnapshot.Builder builder(long firsts, int waiting, double kvUse) {
    return ready("r0").waitingRequests(waiting).kvUsage(kvUse, 1_000)
        .timeToFirstToken(new LatencyTotals(firsts * 0.1, firsts));
  }

  @Test
  void measuresFirstTokensPerSecondOnlyBetweenReportsThatBothShowRequestsWaiting() {
    AdmissionRate rate = new AdmissionRate();
    rate.onReport(report(0, 5, 1), 0);
    assertThat(rate.perSecond()).as("one report is no interval").isNaN();

    rate.onReport(report(10, 5, 1), S);
    assertThat(rate.perSecond()).isEqualTo(10.0);

    // the queue emptied: 50 first tokens in that second say how fast requests came, not how fast
    // the replica could admit them
    rate.onReport(report(60, 0, 1), 2 * S);
    rate.onReport(report(70, 4, 1), 3 * S);
    assertThat(rate.perSecond()).isEqualTo(10.0);

    // both waiting again: 20 per second, averaged in with weight 0.3
    rate.onReport(report(90, 4, 1), 4 * S);
    assertThat(rate.perSecond()).isCloseTo(10 + 0.3 * (20 - 10), within(1e-9));
  }

  @Test
  void aSampleSpansAtLeastFourFirstTokens_notOneQuietReportInterval() {
    // two first tokens a second, reported every 250 ms: the intervals alternate 0 and 1 first token
    AdmissionRate rate = new AdmissionRate();
    long[] firsts = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8};
    for (int i = 0; i < firsts.length; i++) {
      rate.onReport(report(firsts[i], 5, 1), i * S / 4);
      if (i < 8) {
        assertThat(rate.perSecond()).as("fewer than four first tokens at %d ms", i * 250).isNaN();
      } else {
        // one-interval samples would read 0 and 4 per second in turn
        assertThat(rate.perSecond()).as("at %d ms", i * 250).isCloseTo(2.0, within(1e-9));
      }
    }
  }

  @Test
  void aReplicaAdmittingFewerThanFourInFiveSecondsIsMeasuredAtThatRate() {
    AdmissionRate rate = new AdmissionRate();
    rate.onReport(report(0, 9, 1), 0);
    rate.onReport(report(1, 9, 1), 4 * S);
    assertThat(rate.perSecond()).isNaN();

    rate.onReport(report(1, 9, 1), 5 * S);

    assertThat(rate.perSecond()).isCloseTo(0.2, within(1e-9));
  }

  @Test
  void aCounterThatGoesBackwardsStartsOver() {
    AdmissionRate rate = new AdmissionRate();
    rate.onReport(report(0, 5, 1), 0);
    rate.onReport(report(10, 5, 1), S);

    rate.onReport(report(3, 5, 1), 2 * S);

    assertThat(rate.perSecond()).isNaN();
    rate.onReport(report(13, 5, 1), 3 * S);
    assertThat(rate.perSecond()).isEqualTo(10.0);
  }

  @ParameterizedTest(name = "{0} waiting, KV {1}, {2} sent since, {3} ms old, {4}/s -> {5} ms")
  @CsvSource({
      // 20 + 2 - 10/s x 0.5 s = 17 waiting, at 10 per second: 1,700 ms, of which 0.3
      "20, 0.95, 2, 500, 10, 510",
      "20, 0.90, 0, 0,   10, 600",
      // the KV is not full: held up by prefills, which the queue estimate prices
      "20, 0.85, 2, 500, 10, 0",
      // nothing waits
      "0,  1.00, 2, 500, 10, 0",
      // drained since the report
      "3,  1.00, 0, 1000, 10, 0",
      // no rate measured yet
      "20, 1.00, 0, 0,   NaN, 0",
  })
  void theFloorIsAShareOfTheWaitingOverTheRate_whereTheKvIsFull(int waiting, double kvUse,
      int since, double ageMillis, double perSecond, double floorMillis) {
    assertThat(AdmissionRate.kvBoundWaitMillis(report(0, waiting, kvUse), since, ageMillis,
        perSecond)).isCloseTo(floorMillis, within(1e-9));
  }

  @Test
  void throughTheRouter_aKvBoundBacklogIsPricedAtItsAdmissionRate() {
    ManualTicker ticker = new ManualTicker();
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
    // 30 waiting behind a full KV, 5 first tokens per second between the two reports
    router.onSnapshot(builder(100, 30, 1.0).observedAtNanos(0).build());
    ticker.advanceMillis(1_000);
    router.onSnapshot(builder(105, 30, 1.0).observedAtNanos(S).build());

    router.route(request("a", prompt(1_000, 1)).build());

    // 0.3 x 30 / (5 per second)
    assertThat(policy.views.get("r0").estimatedQueueMillis()).isGreaterThanOrEqualTo(1_800);
  }
}
