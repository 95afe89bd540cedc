package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.RequestRef;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * This router's books for one replica: a report observed at T with queue Q, the sends after T replayed
 * as {@code q <- max(0, q - gap) + work}, drained to now.
 */
class DispatchLedgerTest {
  private static final long MS = 1_000_000L;
  private static final Offset<Double> EXACT = within(1e-9);

  private final DispatchLedger ledger = new DispatchLedger();
  private int leases;

  private Lease send(long atMillis, double workMillis) {
    Lease l = new Lease(new RequestRef("q-" + ++leases, 1), null, 0, null, atMillis * MS, 1_000,
        100, 0, workMillis, workMillis, 0, Double.NaN);
    ledger.dispatch(l);
    return l;
  }

  private LedgerReading read(long nowMillis) {
    LedgerReading r = new LedgerReading();
    ledger.read(nowMillis * MS, r);
    return r;
  }

  @Test
  void sendsAfterTheReportAreReplayedOntoItsQueueAndDrainedToNow() {
    ledger.onReport(0, 100, 0);
    send(10, 50);
    send(30, 20);

    // 100 at 0 -> 90 + 50 = 140 at 10 ms -> 120 + 20 = 140 at 30 ms -> drains 1 ms per ms
    assertThat(read(30).queueMillis).isCloseTo(140, EXACT);
    assertThat(read(100).queueMillis).isCloseTo(140 - 70, EXACT);
    assertThat(read(300).queueMillis).isZero();
    LedgerReading r = read(100);
    assertThat(r.sinceCount).isEqualTo(2);
    assertThat(r.inFlightRequests).isEqualTo(2);
    assertThat(r.inFlightTokens).isEqualTo(2 * (1_000 + 100));
    assertThat(r.sinceOutstandingTokens).isEqualTo(2 * (1_000 + 100));
  }

  /**
   * A send of a 1,000-token prompt planning 100 output tokens, {@code matched} of them matched by
   * the index, with the prefix key {@code key}.
   */
  private Lease send(long atMillis, int matched, long key) {
    Lease l = new Lease(new RequestRef("k-" + ++leases, 1), null, 0, null, atMillis * MS, 1_000,
        100, matched, 5, 5, 0, Double.NaN);
    l.prefixKey = key;
    ledger.dispatch(l);
    return l;
  }

  @Test
  void aHitOnAPrefixNoSendHoldsTakesItsCachedPartFromTheFreeKvToo() {
    ledger.onReport(0, 0, 0);
    Lease first = send(10, 600, 7);
    // nothing held prefix 7 when it was sent: its whole prompt and output
    assertThat(read(20).sinceKvTokens).isEqualTo(1_100);
    send(20, 600, 7);
    assertThat(read(30).sinceKvTokens).as("the first holds it").isEqualTo(1_100 + 500);
    ledger.release(first);
    assertThat(read(30).sinceKvTokens).isEqualTo(500);
    send(30, 600, 7);
    assertThat(read(40).sinceKvTokens).as("the second holds it").isEqualTo(500 + 500);
  }

  @Test
  void withPeersAHitNeverCountsItsCachedPart_theirRequestsMayHoldIt() {
    ledger.onReport(0, 0, 0, 2.0);
    send(10, 600, 7);
    assertThat(read(20).sinceKvTokens).isEqualTo(500);
  }

  @Test
  void theKvSendsAddCountsOnlyWhatTheIndexDidNotMatch() {
    ledger.onReport(0, 0, 0);
    send(10, 0, 7);
    send(20, 600, 7); // the miss before it holds the prefix

    LedgerReading r = read(30);
    assertThat(r.sinceOutstandingTokens).isEqualTo(2 * (1_000 + 100));
    // the miss adds its whole prompt and output, the hit 400 unmatched tokens and its output
    assertThat(r.sinceKvTokens).isEqualTo(1_100 + 400 + 100);

    ledger.onReport(15 * MS, 0, 0);
    assertThat(read(30).sinceKvTokens).as("the report holds the miss").isEqualTo(500);
  }

  @Test
  void anIdleGapEmptiesTheQueueBeforeTheNextSend() {
    ledger.onReport(0, 10, 0);
    send(50, 30);

    assertThat(read(50).queueMillis).isCloseTo(30, EXACT);
  }

  @Test
  void aNewReportDropsTheSendsItAlreadyReflects_andReplaysTheRest() {
    ledger.onReport(0, 100, 0);
    send(10, 50);
    send(30, 20);

    ledger.onReport(20 * MS, 80, 0);

    // the send at 10 ms is in the report; the one at 30 ms is not: 80 -> 70 + 20 = 90 at 30 ms
    LedgerReading r = read(100);
    assertThat(r.queueMillis).isCloseTo(90 - 70, EXACT);
    assertThat(r.sinceCount).isEqualTo(1);
    assertThat(r.sinceOutstandingTokens).isEqualTo(1_100);
    assertThat(r.inFlightRequests).as("still in flight, just reflected").isEqualTo(2);
  }

  @Test
  void sendsBookedOutOfTimeOrderAreReplayedInTimeOrder_andAReportDropsExactlyThoseItSaw() {
    ledger.onReport(0, 100, 0);
    send(30, 20);
    send(10, 50);

    // the same queue as when the sends arrive in order: 140 at 30 ms
    assertThat(read(30).queueMillis).isCloseTo(140, EXACT);

    ledger.onReport(20 * MS, 80, 0);

    LedgerReading r = read(100);
    assertThat(r.sinceCount).as("only the send at 30 ms is after the report").isEqualTo(1);
    assertThat(r.queueMillis).isCloseTo(90 - 70, EXACT);
  }

  @Test
  void aReportWithoutQueueFieldsKeepsEverything() {
    ledger.onReport(0, 100, 0);
    send(10, 50);
    send(30, 20);
    double before = read(100).queueMillis;

    ledger.onReport(50 * MS, Double.NaN, 0);

    LedgerReading r = read(100);
    assertThat(r.sinceCount).isEqualTo(2);
    assertThat(r.queueMillis).isEqualTo(before);
  }

  @Test
  void releasingASendReplaysTheQueueWithoutIt() {
    ledger.onReport(0, 100, 0);
    Lease first = send(10, 50);
    send(30, 20);

    ledger.release(first);

    // 100 at 0 -> 70 + 20 = 90 at 30 ms
    LedgerReading r = read(30);
    assertThat(r.queueMillis).isCloseTo(90, EXACT);
    assertThat(r.sinceCount).isEqualTo(1);
    assertThat(r.inFlightRequests).isEqualTo(1);
    assertThat(r.inFlightTokens).isEqualTo(1_100);
  }

  @Test
  void firstTokensAndReleasesOfManyUnreportedSendsNeverWalkThemAll() {
    ledger.onReport(0, 0, 0);
    int n = 20_000;
    Lease[] sent = new Lease[n];
    for (int i = 0; i < n; i++) {
      sent[i] = send(i, 5);
    }
    for (int i = 0; i < n; i += 2) {
      assertThat(ledger.firstToken(sent[i], 0)).isTrue();
    }
    for (int i = 0; i < n; i++) {
      ledger.release(sent[(int) ((i * 7_919L) % n)]);
    }

    // rebuilds only: on growth (doubling) and when dead leaves outnumber live ones (halving)
    assertThat(ledger.replaySteps()).isLessThanOrEqualTo(4L * n);
    LedgerReading r = read(n);
    assertThat(r.inFlightRequests).isZero();
    assertThat(r.sinceCount).isZero();
    assertThat(r.queueMillis).isZero();
  }

  @Test
  void withFirstTokensAPrefillLeavesTheQueueOnce_notDrainedByTimeAndThenAgainByItsFirstToken() {
    ledger.onReport(0, 0, 0, 0);
    Lease a = send(0, 100);
    send(0, 100);
    assertThat(read(0).queueMillis).as("no first token seen yet: the replay").isCloseTo(200, EXACT);

    ledger.firstToken(a, 100 * MS);

    // the replay drained a's 100 ms by time and then dropped its work again: b's 100 ms vanished
    assertThat(read(100).replayQueueMillis).isZero();
    // pending work: b's 100 ms, of which the replica has done what passed since a's first token
    assertThat(read(100).queueMillis).isCloseTo(100, EXACT);
    assertThat(read(150).queueMillis).isCloseTo(50, EXACT);
    assertThat(read(400).queueMillis).isZero();
  }

  @Test
  void withFirstTokensTheReportCountsOnlyItsUnseenShare_andPeersScaleTheSendsSinceIt() {
    Lease x = send(0, 10);
    ledger.firstToken(x, 5 * MS);
    send(6, 100);

    // 3 waiting at 10 ms, one of them this router's own pending send: 2/3 of 300 ms are unseen
    ledger.onReport(10 * MS, 300, 3, 0);
    assertThat(read(10).queueMillis).as("200 unseen + 100 - 4 ms done").isCloseTo(296, EXACT);
    assertThat(read(60).queueMillis).isCloseTo(150 + 46, EXACT);

    ledger.onReport(60 * MS, 0, 0, 2);
    send(60, 30);
    // 46 ms left of the first + 30, and the two peers' sends in step with the one since the report
    assertThat(read(60).queueMillis).isCloseTo(46 + 30 + 2 * 30, EXACT);
  }

  @Test
  void releaseIsIdempotent_andAReflectedSendOnlyLeavesTheInFlightBooks() {
    ledger.onReport(0, 0, 0);
    Lease l = send(10, 50);
    ledger.onReport(20 * MS, 45, 0);

    ledger.release(l);
    ledger.release(l);

    LedgerReading r = read(20);
    assertThat(r.inFlightRequests).isZero();
    assertThat(r.inFlightTokens).isZero();
    assertThat(r.queueMillis).as("the report's queue, untouched").isCloseTo(45, EXACT);
  }

  @Test
  void resetForgetsTheReplayButInFlightIsReleasedByTheCaller() {
    ledger.onReport(0, 100, 0);
    Lease l = send(10, 50);

    ledger.reset();

    assertThat(read(10).queueMillis).isZero();
    assertThat(read(10).sinceCount).isZero();
    assertThat(ledger.inFlightRequests()).isEqualTo(1);
    ledger.release(l);
    assertThat(ledger.inFlightRequests()).isZero();
    assertThat(ledger.dispatchedTotal()).isEqualTo(1);
  }

  @Test
  void decodeHoldsCountInFlightButAddNoQueue() {
    ledger.onReport(0, 0, 0);
    Lease l = new Lease(new RequestRef("pd", 1), null, 0, null, 0, 500, 50, 0, 0, 40, 0, Double.NaN);

    ledger.holdDecode(l);

    assertThat(read(0).inFlightRequests).isEqualTo(1);
    assertThat(read(0).queueMillis).isZero();
    ledger.releaseDecode(l);
    assertThat(read(0).inFlightRequests).isZero();
  }

  // ------------------------------------------------------------------- through the router

  @Test
  void theRoutersViewsCarryTheReplayedQueue() {
    ManualTicker ticker = new ManualTicker();
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
    router.onSnapshot(ready("r0").observedAtNanos(0).estimatedQueueDelayMillis(100).build());
    double work = 20 + 0.035 * 1_000;

    ticker.advanceMillis(10);
    router.route(request("a", prompt(1_000, 1)).build());
    ticker.advanceMillis(20);
    router.route(request("b", prompt(1_000, 2)).build());
    CandidateView seenByB = policy.views.get("r0");

    assertThat(seenByB.dispatchedSinceSnapshot()).isEqualTo(1);
    assertThat(seenByB.estimatedQueueMillis()).isCloseTo(100 - 10 + work - 20, EXACT);
    assertThat(seenByB.snapshotAgeMillis()).isCloseTo(30, EXACT);

    // a report observed at 20 ms (after a, before b) arrives now, at 30 ms
    router.onSnapshot(ready("r0").observedAtNanos(20 * MS).estimatedQueueDelayMillis(80).build());
    router.route(request("c", prompt(1_000, 3)).build());
    CandidateView seenByC = policy.views.get("r0");

    assertThat(seenByC.dispatchedSinceSnapshot()).isEqualTo(1);
    assertThat(seenByC.estimatedQueueMillis()).isCloseTo(80 - 10 + work, EXACT);
    assertThat(seenByC.inFlightRequests()).isEqualTo(2);
  }

  @ParameterizedTest
  @CsvSource({
      // 940 tokens short, and 2 waiting ahead x 1,100: 3,140 at 110 freed per second, decayed 1 ms
      "2, 28548.309234",
      // nothing waits there yet, but a router alone counts the wait before a queue forms
      "0, 8546.309134",
  })
  void throughTheRouter_aRequestWhoseKvDoesNotFitWaitsForFinishingSendsToFreeIt(int waiting,
      double queueMillis) {
    ManualTicker ticker = new ManualTicker();
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
    router.onSnapshot(ready("r0").estimatedQueueDelayMillis(0).kvBlocks(0, 100)
        .kvBlockSizeTokens(16).build());
    var a = request("a", prompt(1_000, 1)).maxOutputTokens(100).build();
    var d = router.route(a);
    // a (1,100 tokens of KV) finishes: with a 10 s memory, 110 tokens are freed per second
    router.onOutcome(TestData.outcome(a, d, io.github.kvroute.api.OutcomeStatus.SUCCESS).build());
    ticker.advanceMillis(1);
    router.onSnapshot(ready("r0").observedAtNanos(1 * MS).estimatedQueueDelayMillis(0)
        .waitingRequests(waiting).kvBlocks(90, 100).kvBlockSizeTokens(16).build());

    // b needs 1,100 tokens and 160 are free
    router.route(request("b", prompt(1_000, 2)).maxOutputTokens(100).build());

    assertThat(policy.views.get("r0").estimatedQueueMillis()).isCloseTo(queueMillis, within(1e-3));
  }

  @Test
  void throughTheRouter_aReportWithoutQueueFieldsKeepsTheSends() {
    ManualTicker ticker = new ManualTicker();
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
    router.onSnapshot(ready("r0").estimatedQueueDelayMillis(0).build());
    router.route(request("a", prompt(1_000, 1)).build());
    ticker.advanceMillis(5);
    router.route(request("b", prompt(1_000, 2)).build());
    double queueBefore = policy.views.get("r0").estimatedQueueMillis();

    router.onSnapshot(ready("r0").runningRequests(3).build());
    router.route(request("c", prompt(1_000, 3)).build());

    // both sends stay on the books: what b saw (a's work, 5 ms drained) plus b's own work
    assertThat(policy.views.get("r0").dispatchedSinceSnapshot()).isEqualTo(2);
    assertThat(policy.views.get("r0").estimatedQueueMillis())
        .isCloseTo(queueBefore + (20 + 0.035 * 1_000), EXACT);
  }

  /** Precedence: the replica's own delay estimate, then queued tokens, then waiting requests. */
  @ParameterizedTest(name = "delay={0} waiting={1} tokens={2} -> {3}")
  @CsvSource({
      "75,  3,  1000, 75",
      "-1,  3,  1000, 95",     // 3 x 20 + 1,000 x 0.035
      "-1, -1,  1000, 35",
      "-1,  0,     0, 0",
      "-1, -1,    -1, NaN",
  })
  void theQueueAReportShows(double delay, int waiting, long tokens, double expected) {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(new ManualTicker())
        .build();
    ReplicaSnapshot.Builder b = ready("r0");
    if (delay >= 0) {
      b.estimatedQueueDelayMillis(delay);
    }
    if (waiting >= 0) {
      b.waitingRequests(waiting);
    }
    if (tokens >= 0) {
      b.queuedPrefillTokens(tokens);
    }
    ReplicaSnapshot s = b.build();
    router.onSnapshot(s);

    double q = router.fleet().reportedQueueMillis(router.fleet().get("r0"), s);

    if (Double.isNaN(expected)) {
      assertThat(q).isNaN();
    } else {
      assertThat(q).isCloseTo(expected, EXACT);
    }
  }

  @Test
  void waitingRequestsAloneArePricedAtTheMeanWork() {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(new ManualTicker())
        .build();
    ReplicaSnapshot s = ready("r0").waitingRequests(4).build();
    router.onSnapshot(s);
    router.route(request("a", prompt(1_000, 1)).build());

    double q = router.fleet().reportedQueueMillis(router.fleet().get("r0"), s);

    // the mean predicted prefill of routed work: one 1,000-token request so far
    assertThat(q).isCloseTo(4 * (20 + 0.035 * 1_000), EXACT);
  }
}
