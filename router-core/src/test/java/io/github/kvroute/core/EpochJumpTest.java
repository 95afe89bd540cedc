package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static io.github.kvroute.core.TestData.storedPrefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * An epoch below {@code MAX_EPOCH} can still be absurd (2^61 from a buggy exporter): one further
 * ahead of the known epoch than {@code maxEpochAdvance} plus the time since that epoch was learnt is
 * ignored, changes nothing, and cannot make the replica's real reports stale.
 */
class EpochJumpTest {
  private static final long ABSURD = 1L << 61;

  private final ManualTicker ticker = new ManualTicker();
  private final Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
      .build();
  private int requests;

  private static ReplicaSnapshot report(long epoch) {
    return ready("a").epoch(epoch).estimatedQueueDelayMillis(0).build();
  }

  private RoutingDecision route() {
    Request r = request("q-" + ++requests, prompt(64, requests)).build();
    return router.route(r);
  }

  @Test
  void anAbsurdEpochInAReport_isIgnored_andTheRealEpochKeepsServing() {
    router.onSnapshot(report(3));
    RoutingDecision inFlight = route();

    assertThat(router.onSnapshot(report(ABSURD))).isEqualTo(UpdateResult.EPOCH_JUMP);

    ReplicaStatus a = router.replicas().get(0);
    assertThat(a.epoch()).isEqualTo(3);
    assertThat(a.inFlightRequests()).as("nothing orphaned").isEqualTo(1);
    assertThat(router.stats().orphaned()).isZero();
    assertThat(inFlight.epoch()).isEqualTo(3);
    assertThat(router.onSnapshot(report(3))).as("the real process still reports")
        .isEqualTo(UpdateResult.APPLIED);
    assertThat(route().isRouted()).isTrue();
    assertThat(router.onSnapshot(report(4))).as("a real restart").isEqualTo(UpdateResult.APPLIED);
    assertThat(router.replicas().get(0).epoch()).isEqualTo(4);
  }

  @Test
  void anAbsurdEpochInAKvEvent_isIgnored_andKeepsTheIndex() {
    router.onSnapshot(report(3));
    router.onKvEvent(storedPrefix("a", 3, prompt(160, 1), 10));

    assertThat(router.onKvEvent(KvEvent.cleared("a", ABSURD))).isEqualTo(UpdateResult.EPOCH_JUMP);

    assertThat(router.replicas().get(0).epoch()).isEqualTo(3);
    assertThat(router.replicas().get(0).indexEntries()).isEqualTo(10);
    assertThat(router.onSnapshot(report(3))).isEqualTo(UpdateResult.APPLIED);
  }

  @Test
  void afterRemoval_anAbsurdEpochCannotBringTheIdBack_butARealOneCan() {
    router.onSnapshot(report(3));
    router.removeReplica("a");

    assertThat(router.onSnapshot(report(ABSURD))).isEqualTo(UpdateResult.EPOCH_JUMP);
    assertThat(router.replicas()).isEmpty();
    assertThat(router.onSnapshot(report(4))).isEqualTo(UpdateResult.APPLIED);
    assertThat(router.replicas().get(0).epoch()).isEqualTo(4);
  }

  @Test
  void startTimeEpochs_advanceWithTheClock() {
    // epochs are process start times in nanoseconds (2026): a restart a year later is legal
    long start = 1_764_547_200_000_000_000L;
    long year = 365L * 24 * 3600 * 1_000_000_000L;
    Router tight = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .maxEpochAdvance(1_000_000_000L).build();
    tight.onSnapshot(report(start));

    assertThat(tight.onSnapshot(report(start + year))).as("a year ahead, no time passed")
        .isEqualTo(UpdateResult.EPOCH_JUMP);
    ticker.advanceNanos(year);
    assertThat(tight.onSnapshot(report(start + year))).as("a year ahead, a year later")
        .isEqualTo(UpdateResult.APPLIED);
  }

  @Test
  void theDefaultAcceptsCounterAndStartTimeRestarts() {
    router.onSnapshot(report(1_764_547_200_000_000_000L));

    // a process that had run for five years when this router first saw it restarts now
    long fiveYears = 5L * 365 * 24 * 3600 * 1_000_000_000L;
    assertThat(router.onSnapshot(report(1_764_547_200_000_000_000L + fiveYears)))
        .isEqualTo(UpdateResult.APPLIED);
    assertThat(router.onSnapshot(ready("b").epoch(7).build())).isEqualTo(UpdateResult.APPLIED);
    assertThat(router.onSnapshot(ready("b").epoch(8).build())).isEqualTo(UpdateResult.APPLIED);
  }

  @Test
  void badAdvanceIsRefusedClearly() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Router.newBuilder().maxEpochAdvance(0))
        .withMessage("maxEpochAdvance: 0 (expected: in [1, 4611686018427387903])");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Router.newBuilder().maxEpochAdvance(Long.MAX_VALUE))
        .withMessage("maxEpochAdvance: 9223372036854775807 (expected: in [1, 4611686018427387903])");
  }

  /**
   * Any jump over the bound is refused and changes nothing a host can see; any jump within it is a
   * restart. The bound saturates: no epoch or elapsed time overflows it.
   */
  @Property(tries = 300)
  void aJumpIsRefusedExactlyWhenItExceedsTheAdvancePlusTheElapsedTime(
      @ForAll @LongRange(min = 0, max = ReplicaSnapshot.MAX_EPOCH) long known,
      @ForAll @LongRange(min = 1, max = ReplicaSnapshot.MAX_EPOCH) long advance,
      @ForAll @LongRange(min = 0, max = 1L << 62) long elapsedNanos,
      @ForAll @LongRange(min = 1, max = ReplicaSnapshot.MAX_EPOCH) long jump) {
    long next = Math.min(ReplicaSnapshot.MAX_EPOCH, known + jump);
    if (next == known) {
      return;
    }
    ManualTicker clock = new ManualTicker();
    Router r = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(clock)
        .maxEpochAdvance(advance).build();
    r.onSnapshot(report(known));
    clock.advanceNanos(elapsedNanos);
    assertThat(r.onSnapshot(report(known))).isEqualTo(UpdateResult.APPLIED);
    assertThat(r.route(request("q", prompt(64, 1)).build()).isRouted()).isTrue();
    ReplicaStatus before = r.replicas().get(0);

    UpdateResult result = r.onSnapshot(ready("a").epoch(next).state(ReplicaState.STARTING)
        .build());

    boolean within = java.math.BigInteger.valueOf(next).compareTo(java.math.BigInteger
        .valueOf(known).add(java.math.BigInteger.valueOf(advance))
        .add(java.math.BigInteger.valueOf(elapsedNanos))) <= 0;
    if (within) {
      assertThat(result).isEqualTo(UpdateResult.APPLIED);
      assertThat(r.replicas().get(0).epoch()).isEqualTo(next);
      assertThat(r.stats().orphaned()).isEqualTo(1);
    } else {
      assertThat(result).isEqualTo(UpdateResult.EPOCH_JUMP);
      ReplicaStatus after = r.replicas().get(0);
      assertThat(after.epoch()).isEqualTo(before.epoch());
      assertThat(after.state()).isEqualTo(before.state());
      assertThat(after.inFlightRequests()).isEqualTo(1);
      assertThat(r.stats().orphaned()).isZero();
    }
  }
}
