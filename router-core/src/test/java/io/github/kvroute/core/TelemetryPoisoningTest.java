package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** One bad clock, epoch or event must not poison what the router believes about a replica. */
class TelemetryPoisoningTest {
  private static final long HOUR = Duration.ofHours(1).toNanos();

  private final ManualTicker ticker = new ManualTicker();
  private final Router router =
      Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker).build();

  TelemetryPoisoningTest() {
    ticker.advanceMillis(10_000);
  }

  private long routedTo(String replicaId, int requests) {
    long n = 0;
    for (int i = 0; i < requests; i++) {
      RoutingDecision d =
          router.route(request("q-" + ticker.read() + "-" + i, prompt(64, i)).build());
      if (d.isRouted() && d.replicaId().equals(replicaId)) {
        n++;
      }
    }
    return n;
  }

  @Test
  void aReportStampedAnHourAheadIsIgnoredAndLaterReportsStillApply() {
    router.onSnapshot(queued("a", 0));
    router.onSnapshot(queued("b", 500));

    UpdateResult future = router.onSnapshot(
        ready("a").observedAtNanos(ticker.read() + HOUR).estimatedQueueDelayMillis(0).build());
    ticker.advanceMillis(100);
    UpdateResult draining = router.onSnapshot(ready("a").state(ReplicaState.DRAINING)
        .observedAtNanos(ticker.read()).build());

    assertThat(future).isEqualTo(UpdateResult.CLOCK_SKEW);
    assertThat(draining).isEqualTo(UpdateResult.APPLIED);
    assertThat(routedTo("a", 20)).isZero();
    assertThat(router.stats().skewedReports()).isEqualTo(1);
  }

  @Test
  void aReportWithinTheSkewCountsAsObservedNow() {
    router.onSnapshot(ready("a").observedAtNanos(ticker.read() + 2_000_000_000L).build());
    ticker.advanceMillis(100);

    assertThat(router.onSnapshot(ready("a").state(ReplicaState.DRAINING)
        .observedAtNanos(ticker.read()).build())).isEqualTo(UpdateResult.APPLIED);
  }

  @Test
  void theAcceptedSkewIsConfigurable() {
    Router strict = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .maxClockSkew(Duration.ZERO).build();

    assertThat(strict.onSnapshot(ready("a").observedAtNanos(ticker.read() + 1).build()))
        .isEqualTo(UpdateResult.CLOCK_SKEW);
    assertThat(strict.onSnapshot(ready("a").observedAtNanos(ticker.read()).build()))
        .isEqualTo(UpdateResult.APPLIED);
  }

  @Test
  void aReportStampedNearLongMinIsADayOldNotFresh() {
    router.onSnapshot(ready("a").observedAtNanos(Long.MIN_VALUE + 1).build());

    ReplicaStatus a = router.replicas().get(0);
    assertThat(a.reportAgeMillis()).isEqualTo(Duration.ofDays(1).toMillis());
  }

  @Test
  void aKvEventForAnUnknownReplicaIsDroppedAndCounted() {
    for (int i = 0; i < 100; i++) {
      assertThat(router.onKvEvent(KvEvent.stored("phantom-" + i, 0, 1, 2, 3)))
          .isEqualTo(UpdateResult.UNKNOWN_REPLICA);
    }

    assertThat(router.replicas()).isEmpty();
    assertThat(router.stats().droppedKvEvents()).isEqualTo(100);
    assertThat(router.stats().indexEntries()).isZero();
  }

  @Test
  void removalIsPermanentForTheRemovedEpoch() {
    router.onSnapshot(ready("a").epoch(3).build());
    router.removeReplica("a");
    ticker.advanceNanos(7 * HOUR);

    assertThat(router.onSnapshot(ready("a").epoch(3).observedAtNanos(ticker.read()).build()))
        .isEqualTo(UpdateResult.STALE_EPOCH);
    assertThat(router.onKvEvent(KvEvent.stored("a", 3, 1))).isEqualTo(UpdateResult.STALE_EPOCH);
    assertThat(router.onKvEvent(KvEvent.stored("a", 4, 1)))
        .isEqualTo(UpdateResult.UNKNOWN_REPLICA);
    assertThat(router.replicas()).isEmpty();
    // a new process (newer epoch) reporting joins again
    assertThat(router.onSnapshot(ready("a").epoch(4).build())).isEqualTo(UpdateResult.APPLIED);
  }
}
