package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The fields a stock engine exports: cumulative counters, histogram totals, SGLang's gauges. */
class ReplicaSnapshotCountersTest {

  private static ReplicaSnapshot.Builder minimal() {
    return ReplicaSnapshot.newBuilder().replicaId("r1").model("llama");
  }

  @Test
  void unsetCountersAreAbsentNotZero() {
    ReplicaSnapshot s = minimal().build();

    assertThat(List.of(s.promptTokensTotal(), s.generationTokensTotal(), s.prefixCacheQueriesTotal(),
        s.prefixCacheHitsTotal(), s.preemptionsTotal())).containsOnly(OptionalLong.empty());
    assertThat(List.of(s.cacheHitRate(), s.generationTokensPerSecond()))
        .containsOnly(OptionalDouble.empty());
    assertThat(List.of(s.timeToFirstToken(), s.queueTime(), s.prefillTime()))
        .containsOnly(Optional.empty());
  }

  @Test
  void setCountersArePresentEvenWhenZero() {
    ReplicaSnapshot s = minimal().promptTokensTotal(0).generationTokensTotal(12)
        .prefixCache(0, 0).preemptionsTotal(0).cacheHitRate(0).generationTokensPerSecond(0)
        .timeToFirstToken(new LatencyTotals(0, 0)).queueTime(new LatencyTotals(1.5, 3))
        .prefillTime(new LatencyTotals(0.25, 1)).build();

    assertThat(s.promptTokensTotal()).hasValue(0);
    assertThat(s.generationTokensTotal()).hasValue(12);
    assertThat(s.prefixCacheQueriesTotal()).hasValue(0);
    assertThat(s.prefixCacheHitsTotal()).hasValue(0);
    assertThat(s.preemptionsTotal()).hasValue(0);
    assertThat(s.cacheHitRate()).hasValue(0);
    assertThat(s.generationTokensPerSecond()).hasValue(0);
    assertThat(s.timeToFirstToken()).contains(new LatencyTotals(0, 0));
    assertThat(s.queueTime().orElseThrow().meanSeconds()).hasValue(0.5);
    assertThat(s.prefillTime().orElseThrow().count()).isEqualTo(1);
  }

  @Test
  void kvUsageAsAFractionOfTheEnginesBlocks() {
    ReplicaSnapshot s = minimal().kvUsage(0.25, 1_000).kvBlockSizeTokens(16).build();

    assertThat(s.kvBlocksUsed()).hasValue(250);
    assertThat(s.kvBlocksTotal()).hasValue(1_000);
    assertThat(s.kvUtilization()).hasValue(0.25);
    assertThat(s.kvCapacityTokens()).hasValue(16_000);
  }

  @Test
  void badValuesAreNamed() {
    assertThatIllegalArgumentException().isThrownBy(() -> minimal().promptTokensTotal(-1))
        .withMessage("promptTokensTotal: -1 (expected: >= 0)");
    assertThatIllegalArgumentException().isThrownBy(() -> minimal().prefixCache(10, 11))
        .withMessage("prefixCacheHitsTotal: 11 (expected: <= prefixCacheQueriesTotal = 10)");
    assertThatIllegalArgumentException().isThrownBy(() -> minimal().cacheHitRate(1.5))
        .withMessage("cacheHitRate: 1.5 (expected: in [0, 1])");
    assertThatIllegalArgumentException().isThrownBy(() -> minimal().generationTokensPerSecond(Double.NaN))
        .withMessage("generationTokensPerSecond: NaN (expected: finite and >= 0)");
    assertThatIllegalArgumentException().isThrownBy(() -> minimal().kvUsage(-0.1, 10))
        .withMessage("kvUsage: -0.1 (expected: in [0, 1])");
    assertThatIllegalArgumentException().isThrownBy(() -> new LatencyTotals(2, 0))
        .withMessage("sumSeconds: 2.0 (expected: 0 when count is 0)");
    assertThatIllegalArgumentException().isThrownBy(() -> new LatencyTotals(-1, 3))
        .withMessage("sumSeconds: -1.0 (expected: finite and >= 0)");
    assertThat(new LatencyTotals(0, 0).meanSeconds()).isEmpty();
  }

  @Test
  void eachCounterIsSetOnce() {
    assertThatIllegalStateException().isThrownBy(() -> minimal().preemptionsTotal(1).preemptionsTotal(2))
        .withMessageStartingWith("preemptionsTotal: already set");
    assertThatIllegalStateException()
        .isThrownBy(() -> minimal().timeToFirstToken(new LatencyTotals(0, 0))
            .timeToFirstToken(new LatencyTotals(0, 0)))
        .withMessageStartingWith("timeToFirstToken: already set");
  }
}
