package io.github.kvroute.advisors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Sticky sessions, separate namespaces, and a comparison that separates cache temperature. */
class CanaryTest {
  private final CanarySplit split = CanarySplit.of("v1", "v2", 0.10);

  private static Request request(String id, String session) {
    Request.Builder b = Request.newBuilder().id(id).model("m").maxOutputTokens(8)
        .prompt(PromptKey.unhashed(100));
    return (session == null ? b : b.sessionId(session)).build();
  }

  @Test
  void aSessionNeverCrossesVersions_andRequestsWithoutOneSplitByTheirId() {
    for (int s = 0; s < 200; s++) {
      String version = split.versionFor(request("a" + s, "session-" + s));
      for (int turn = 0; turn < 5; turn++) {
        assertThat(split.versionFor(request("t" + turn + "-" + s, "session-" + s)))
            .isEqualTo(version);
      }
      assertThat(split.versionFor(request("r" + s, null))).isEqualTo(split.versionFor("r" + s));
    }
    assertThat(CanarySplit.of("v1", "v2", 0).versionFor("x")).isEqualTo("v1");
    assertThat(CanarySplit.of("v1", "v2", 1).versionFor("x")).isEqualTo("v2");
  }

  @Test
  void theVersionIsPartOfTheCacheNamespace_theArmsShareNoPrefix() {
    int[] tokens = IntStream.range(0, 64).toArray();
    CacheNamespace v1 = split.namespace("m", "v1");
    CacheNamespace v2 = split.namespace("m", "v2");

    assertThat(PromptKey.ofTokens(tokens, v1).blockHash(0))
        .isNotEqualTo(PromptKey.ofTokens(tokens, v2).blockHash(0));
    assertThatThrownBy(() -> split.namespace("m", "v3"))
        .hasMessage("version: v3 (expected: v1 or v2)");
  }

  @Test
  void aColdCanaryLooksSlowOnTheMean_butNotRowForRow_andTheGapIsFlagged() {
    CanaryComparison c = new CanaryComparison(split, 0.2);
    // the same model speed: 40 ms on a hit, 300 ms on a miss; stable hits 90%, the cold canary 20%
    for (int i = 0; i < 100; i++) {
      c.record("v1", Duration.ofMillis(i < 90 ? 40 : 300), i < 90);
      c.record("v2", Duration.ofMillis(i < 20 ? 40 : 300), i < 20);
    }

    CanaryComparison.Report r = c.report();

    assertThat(r.stable().meanTtftMillis()).isCloseTo(66, within(1e-9));
    assertThat(r.canary().meanTtftMillis()).isCloseTo(248, within(1e-9));
    assertThat(r.canary().hitMeanTtftMillis()).isEqualTo(r.stable().hitMeanTtftMillis());
    assertThat(r.canary().missMeanTtftMillis()).isEqualTo(r.stable().missMeanTtftMillis());
    assertThat(r.hitRatioGap()).isCloseTo(-0.7, within(1e-9));
    assertThat(r.cacheTemperatureDiffers()).isTrue();
    assertThat(r.summary()).contains("v1: hit 90%").contains("v2: hit 20%")
        .contains("compare like rows");
  }

  @Test
  void armsWithSimilarHitRatiosAreNotFlagged_andBadInputsAreNamed() {
    CanaryComparison c = new CanaryComparison(split, 0.2);
    c.record("v1", Duration.ofMillis(50), true);
    c.record("v2", Duration.ofMillis(60), true);
    assertThat(c.report().cacheTemperatureDiffers()).isFalse();

    assertThatThrownBy(() -> c.record("v9", Duration.ZERO, true))
        .hasMessage("version: v9 (expected: v1 or v2)");
    assertThatThrownBy(() -> CanarySplit.of("v1", "v1", 0.1))
        .hasMessage("canary: v1 (expected: a version other than stable)");
    assertThatThrownBy(() -> CanarySplit.of("v1", "v2", 1.5))
        .hasMessage("canaryShare: 1.5 (expected: in [0, 1])");
  }
}
