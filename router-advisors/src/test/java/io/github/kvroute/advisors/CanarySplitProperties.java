package io.github.kvroute.advisors;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.LongRange;

/** The canary's share of sessions converges to the configured percentage. */
class CanarySplitProperties {

  /** 20,000 sessions: the standard error of a share is at most 0.0036; allow 5 of them. */
  @Property(tries = 50)
  void theCanarysShareOfSessionsConvergesToTheConfiguredShare(
      @ForAll @DoubleRange(min = 0, max = 1) double share, @ForAll @LongRange long salt) {
    CanarySplit split = CanarySplit.of("stable", "canary", share);
    int n = 20_000;
    int canary = 0;
    for (int i = 0; i < n; i++) {
      if (split.versionFor("session-" + salt + "-" + i).equals("canary")) {
        canary++;
      }
    }
    assertThat((double) canary / n).isCloseTo(share,
        org.assertj.core.data.Offset.offset(5 * Math.sqrt(share * (1 - share) / n) + 1e-9));
  }
}
