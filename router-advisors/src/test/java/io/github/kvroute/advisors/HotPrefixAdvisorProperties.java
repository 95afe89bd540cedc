package io.github.kvroute.advisors;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** The hysteresis holds whatever the traffic does. */
class HotPrefixAdvisorProperties {

  /**
   * Each step: a gap of 1-5 s, then some hits on one of three prefixes of different sizes, then an
   * evaluation.
   */
  @Property(tries = 200)
  void aDemotedPrefixIsNotPromotedAgainInsideTheHoldoff_andAdviceStaysInRange(
      @ForAll @Size(min = 50, max = 400) List<@IntRange(min = 0, max = 40) Integer> hits,
      @ForAll @IntRange(min = 1, max = 5) int gapSeconds,
      @ForAll @IntRange(min = 0, max = 90) int holdoffSeconds) {
    ManualTicker ticker = new ManualTicker();
    ReplicationConfig config = ReplicationConfig.defaults().withTiming(Duration.ofSeconds(5),
        Duration.ofSeconds(20), Duration.ofSeconds(holdoffSeconds));
    HotPrefixAdvisor advisor = HotPrefixAdvisor.create(config, ticker);
    List<ReplicationChange> changes = new ArrayList<>();
    advisor.subscribe(changes::add);

    for (int i = 0; i < hits.size(); i++) {
      long prefix = i % 3;
      for (int h = 0; h < hits.get(i); h++) {
        advisor.record(prefix, 60 + 120 * prefix);
      }
      ticker.advanceSeconds(gapSeconds + i % 3);
      ReplicationAdvice advice = advisor.evaluate();
      for (long p = 0; p < 3; p++) {
        assertThat(advice.replicasFor(p)).isBetween(1, config.maxReplicas());
      }
    }

    Map<Long, Long> lastDemotion = new HashMap<>();
    Map<Long, Integer> replicas = new HashMap<>();
    for (ReplicationChange c : changes) {
      assertThat(c.fromReplicas()).isEqualTo(replicas.getOrDefault(c.prefixHash(), 1));
      assertThat(c.toReplicas()).isNotEqualTo(c.fromReplicas());
      replicas.put(c.prefixHash(), c.toReplicas());
      if (c.isPromotion()) {
        Long demoted = lastDemotion.get(c.prefixHash());
        if (demoted != null) {
          assertThat(c.atNanos() - demoted)
              .isGreaterThanOrEqualTo(Duration.ofSeconds(holdoffSeconds).toNanos());
        }
      } else {
        lastDemotion.put(c.prefixHash(), c.atNanos());
      }
    }
  }
}
