package io.github.kvroute.advisors;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Whatever the traffic does, the advice never flaps inside the cooldown and stays in range. */
class AutoscaleAdvisorProperties {

  /** Each element: one minute at that many requests per second, with queueing to match. */
  @Property(tries = 100)
  void adviceNeverChangesTwiceWithinTheCooldown(
      @ForAll @Size(min = 5, max = 60) List<@IntRange(min = 0, max = 20) Integer> rpsByMinute,
      @ForAll @IntRange(min = 0, max = 6) int cooldownMinutes,
      @ForAll @IntRange(min = 1, max = 4) int minWarm) {
    ManualTicker ticker = new ManualTicker();
    AutoscaleConfig config = AutoscaleConfig.defaults()
        .withColdStart(Duration.ofMinutes(2), Duration.ofMinutes(cooldownMinutes))
        .withReplicas(minWarm, 12);
    AutoscaleAdvisor advisor = AutoscaleAdvisor.create(config,
        new WorkerThroughput(10_000, 800, "measured"), 4, ticker);
    List<ScaleAdvice> changes = new ArrayList<>();
    advisor.subscribe(changes::add);

    for (int rps : rpsByMinute) {
      for (int s = 0; s < 60; s += 5) {
        ticker.advanceSeconds(5);
        ScaleAdvice a = advisor.observe(new FleetSignals(5L * rps, 5L * rps * 2_000, 5L * rps * 100,
            rps > 10 ? 900 : 20, rps > 15 ? 200_000 : 0, rps > 18 ? 0.95 : 0.4, List.of(
                new FleetSignals.ReplicaWarmth("r0", 0, 0))));
        assertThat(a.replicas()).isBetween(Math.min(minWarm, 4), 12);
      }
    }

    for (int i = 1; i < changes.size(); i++) {
      assertThat(changes.get(i).atNanos() - changes.get(i - 1).atNanos())
          .isGreaterThanOrEqualTo(Duration.ofMinutes(cooldownMinutes).toNanos());
    }
    assertThat(changes).allSatisfy(c -> assertThat(c.replicas()).isBetween(minWarm, 12));
  }
}
