package io.github.kvroute.advisors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.kvroute.api.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The forecast horizon is the cold start: a burst shorter than it adds nothing, load that outlasts it
 * adds replicas; the cooldown and the warm pool hold; scale-down names the least valuable replica.
 */
class AutoscaleAdvisorTest {
  /** The worked sizing's workers: 10,000 prefill and 800 decode tokens/s. */
  private static final WorkerThroughput WORKER = new WorkerThroughput(10_000, 800, "measured");
  private static final List<FleetSignals.ReplicaWarmth> FLEET = List.of(
      new FleetSignals.ReplicaWarmth("replica-0", 3, 5_000),
      new FleetSignals.ReplicaWarmth("replica-1", 0, 9_000),
      new FleetSignals.ReplicaWarmth("replica-2", 0, 7_000),
      new FleetSignals.ReplicaWarmth("replica-3", 1, 1_000));

  private final ManualTicker ticker = new ManualTicker();
  private final List<ScaleAdvice> changes = new ArrayList<>();
  private final AutoscaleAdvisor advisor =
      AutoscaleAdvisor.create(AutoscaleConfig.defaults(), WORKER, 4, ticker);

  {
    advisor.subscribe(changes::add);
  }

  /**
   * {@code seconds} of {@code rps} requests of 8,000 prompt tokens per second (3.2 prefill workers'
   * worth at 4 req/s), observed every second.
   */
  private ScaleAdvice run(int seconds, double rps, double queueDelayMillis) {
    ScaleAdvice last = advisor.advice();
    for (int s = 0; s < seconds; s++) {
      ticker.advanceSeconds(1);
      last = advisor.observe(new FleetSignals((long) rps, (long) (rps * 8_000), 0,
          queueDelayMillis, 0, 0.5, FLEET));
    }
    return last;
  }

  @Test
  void theHorizonIsTheColdStart_aBurstShorterThanItAddsNoReplica() {
    // 4 req/s x 8,000 tokens = 32,000 tok/s = 3.2 workers: 4 at 80%, what the fleet has
    run(600, 4, 10);
    assertThat(changes).isEmpty();

    // 90 s at twice the load with queues at 800 ms: pressure now, but over before a replica served
    ScaleAdvice during = run(90, 8, 800);
    assertThat(during.replicas()).isEqualTo(4);
    assertThat(during.reason()).contains("a burst shorter than the cold start");
    run(600, 4, 10);
    assertThat(changes).isEmpty();

    // the same doubling for most of one cold start (220 s of 240): still nothing
    run(220, 8, 800);
    assertThat(changes).isEmpty();
    run(600, 4, 10);
    assertThat(changes).isEmpty();
  }

  @Test
  void loadThatOutlastsTheColdStartAddsReplicas_thenTheCooldownHolds() {
    run(600, 4, 10);

    run(239, 8, 800);
    assertThat(changes).isEmpty();
    run(2, 8, 800);
    assertThat(changes).singleElement().satisfies(c -> {
      assertThat(c.previousReplicas()).isEqualTo(4);
      assertThat(c.replicas()).isGreaterThan(4);
      assertThat(c.reason()).startsWith("up: ");
    });

    // 6.4 workers' worth needs 8 replicas at 80%; the trend carried across the step can overshoot,
    // and the band keeps what was added; never two changes within the 4 min cooldown
    run(1_200, 8, 10);
    assertThat(advisor.advice().replicas()).isBetween(8, 12);
    for (int i = 1; i < changes.size(); i++) {
      assertThat(changes.get(i).atNanos() - changes.get(i - 1).atNanos())
          .isGreaterThanOrEqualTo(Duration.ofMinutes(4).toNanos());
    }
  }

  @Test
  void scaleDownNamesTheReplicaWithTheLeastValuableWarmCache_andKeepsTheWarmPool() {
    run(600, 4, 10);

    // the load falls to a tenth: one replica at a time, a cooldown apart, down to the warm pool (2)
    run(3_600, 0.4, 10);

    assertThat(changes).extracting(ScaleAdvice::replicas).containsExactly(3, 2);
    assertThat(changes).allSatisfy(c -> {
      // replica-1 and replica-2 hold no hot prefix alone; replica-2 was used least recently
      assertThat(c.removeReplica()).contains("replica-2");
      assertThat(c.reason()).startsWith("down: ");
    });
    assertThat(changes.get(1).atNanos() - changes.get(0).atNanos())
        .isGreaterThanOrEqualTo(Duration.ofMinutes(4).toNanos());
  }

  @Test
  void queuedWorkCountsAsWorkToClearWithinTheHorizon() {
    run(600, 4, 10);
    ticker.advanceSeconds(1);
    // 4 minutes x 10,000 tok/s x 2 workers' worth of prompt tokens waiting: 2 more workers' worth
    ScaleAdvice a = advisor.observe(new FleetSignals(4, 32_000, 0, 10, 4_800_000, 0.5, FLEET));

    assertThat(a.forecastLoad()).isBetween(5.1, 5.3);
    assertThat(a.replicas()).isEqualTo(7);
  }

  @Test
  void badInputsAreRejectedWithTheirNames() {
    assertThatThrownBy(() -> new FleetSignals(0, 0, 0, 0, 0, 1.5, List.of()))
        .hasMessage("kvUtilization: 1.5 (expected: in [0, 1])");
    assertThatThrownBy(() -> AutoscaleConfig.defaults().withReplicas(5, 4))
        .hasMessage("replicas: min 5, max 4 (expected: 0 <= min <= max, max >= 1)");
    assertThatThrownBy(() -> AutoscaleConfig.defaults().withColdStart(Duration.ofSeconds(1),
        Duration.ZERO)).hasMessageStartingWith("bucket: PT10S (expected: at most coldStart");
  }
}
