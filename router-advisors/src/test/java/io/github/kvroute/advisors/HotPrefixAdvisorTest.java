package io.github.kvroute.advisors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The replication economics and the hysteresis, in virtual time. */
class HotPrefixAdvisorTest {
  /** A 6,000-token prefix at 0.04 ms per token: one prefill (one copy) costs 240 ms. */
  private static final double PREFILL_MILLIS = 6_000 * 0.04;
  private static final long PREFIX = 42;

  private final ManualTicker ticker = new ManualTicker();
  private final List<ReplicationChange> changes = new ArrayList<>();
  private final HotPrefixAdvisor advisor = HotPrefixAdvisor.create(ReplicationConfig.defaults(),
      ticker);

  {
    advisor.subscribe(changes::add);
  }

  /** {@code seconds} seconds of {@code hitsPerSecond} hits each second, evaluated every second. */
  private void run(int seconds, int hitsPerSecond) {
    for (int s = 0; s < seconds; s++) {
      for (int h = 0; h < hitsPerSecond; h++) {
        advisor.record(PREFIX, PREFILL_MILLIS);
      }
      ticker.advanceSeconds(1);
      advisor.evaluate();
    }
  }

  @Test
  void atATenthOfAHitPerSecondTheRecomputeBillIs24MillisPerSecond_noise() {
    HotPrefix tenth = new HotPrefix(PREFIX, 1, 0.1, PREFILL_MILLIS);

    assertThat(tenth.recomputeMillisPerSecond()).isCloseTo(24, within(1e-9));
    assertThat(ReplicationConfig.defaults().promotionTarget(24)).isEqualTo(1);
    // a hit every 10 s never even takes a slot in the table, let alone a replica
    for (int i = 0; i < 60; i++) {
      advisor.record(PREFIX, PREFILL_MILLIS);
      for (int s = 0; s < 10; s++) {
        ticker.advanceSeconds(1);
        advisor.evaluate();
      }
    }
    assertThat(advisor.advice().replicasFor(PREFIX)).isEqualTo(1);
    assertThat(advisor.trackedPrefixes()).isZero();
    assertThat(changes).isEmpty();
  }

  @Test
  void atTenHitsPerSecondTheBillIsTwoEnginesOfPrefill_andThePrefixIsReplicatedAfterItHolds() {
    assertThat(new HotPrefix(PREFIX, 1, 10, PREFILL_MILLIS).recomputeMillisPerSecond())
        .isCloseTo(2_400, within(1e-9));
    assertThat(ReplicationConfig.defaults().withMaxReplicas(16).promotionTarget(2_400))
        .isEqualTo(3);

    // the averaged rate, 10 (1 - e^(-t / 10)), passes 1,000 / 240 hits/s in the 6th second; the
    // target of 2 must then hold 10 s; the target of 3 (2,000 ms/s) follows in the 18th second
    run(15, 10);
    assertThat(advisor.advice().replicasFor(PREFIX)).isEqualTo(1);
    run(1, 10);
    assertThat(advisor.advice().replicasFor(PREFIX)).isEqualTo(2);
    run(11, 10);
    assertThat(advisor.advice().replicasFor(PREFIX)).isEqualTo(2);
    run(1, 10);
    assertThat(advisor.advice().replicasFor(PREFIX)).isEqualTo(3);
    assertThat(changes).extracting(ReplicationChange::toReplicas).containsExactly(2, 3);
    assertThat(changes).extracting(ReplicationChange::atNanos)
        .containsExactly(Duration.ofSeconds(16).toNanos(), Duration.ofSeconds(28).toNanos());
  }

  @Test
  void aReplicatedPrefixIsDemotedOnSustainedAbsence_andNotPromotedAgainInsideTheHoldoff() {
    run(120, 10);
    assertThat(advisor.advice().replicasFor(PREFIX)).isEqualTo(3);

    // the rate decays below the demotion band (1,000 ms/s for 3 replicas) after ~9 s; the lower
    // target must then hold 60 s
    run(65, 0);
    assertThat(advisor.advice().replicasFor(PREFIX)).isEqualTo(3);
    run(10, 0);
    assertThat(advisor.advice().replicasFor(PREFIX)).isEqualTo(1);
    ReplicationChange demotion = changes.get(changes.size() - 1);
    assertThat(demotion.isPromotion()).isFalse();

    // back at 10 hits/s: the holdoff (60 s) keeps it at one replica, then promotion resumes
    run(59, 10);
    assertThat(advisor.advice().replicasFor(PREFIX)).isEqualTo(1);
    run(15, 10);
    assertThat(advisor.advice().replicasFor(PREFIX)).isEqualTo(3);
    assertThat(changes.get(changes.size() - 1).atNanos() - demotion.atNanos())
        .isGreaterThanOrEqualTo(Duration.ofSeconds(60).toNanos());
  }

  @Test
  void theTableOfTrackedPrefixesIsBounded_andOneOffPrefixesNeverEnterIt() {
    ReplicationConfig small = new ReplicationConfig(250, 0.5, Duration.ofSeconds(10),
        Duration.ofSeconds(60), Duration.ofSeconds(60), Duration.ofSeconds(10),
        Duration.ofSeconds(60), 4, 8, 1_024, 2);
    HotPrefixAdvisor bounded = HotPrefixAdvisor.create(small, ticker);

    for (long p = 0; p < 100_000; p++) {
      bounded.record(p, PREFILL_MILLIS);
    }
    assertThat(bounded.trackedPrefixes()).isLessThanOrEqualTo(8);
    ticker.advanceSeconds(1);
    bounded.evaluate();
    for (long p = 1_000_000; p < 1_000_020; p++) {
      bounded.record(p, PREFILL_MILLIS);
      bounded.record(p, PREFILL_MILLIS);
    }
    assertThat(bounded.trackedPrefixes()).isEqualTo(8);
  }

  @Test
  void aListenerThatThrowsIsContained() {
    advisor.subscribe(c -> {
      throw new IllegalStateException("boom");
    });

    run(16, 10);

    assertThat(advisor.advice().replicasFor(PREFIX)).isEqualTo(2);
    assertThat(changes).hasSize(1);
    assertThat(advisor.listenerFailures()).isEqualTo(1);
  }

  @Test
  void badValuesAreRejectedWithTheirNames() {
    assertThatThrownBy(() -> advisor.record(PREFIX, -1))
        .hasMessage("prefillMillis: -1.0 (expected: finite and >= 0)");
    assertThatThrownBy(() -> ReplicationConfig.defaults().withMaxReplicas(0))
        .hasMessage("maxReplicas: 0 (expected: in [1, 4096])");
    assertThatThrownBy(() -> new HitSketch(1_000))
        .hasMessage("width: 1000 (expected: a power of two >= 16)");
  }

  @Test
  void theSketchNeverUndercounts() {
    HitSketch sketch = new HitSketch(16);
    for (long k = 0; k < 200; k++) {
      for (int i = 0; i <= k % 5; i++) {
        sketch.increment(k);
      }
    }
    for (long k = 0; k < 200; k++) {
      assertThat(sketch.estimate(k)).isGreaterThanOrEqualTo((int) (k % 5) + 1);
    }
    assertThat(sketch.bytes()).isEqualTo(4 * 16 * 4);
  }
}
