package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import org.junit.jupiter.api.Test;

/**
 * Outcomes correct the approximate index: when the engine reused less than the index promised, the
 * mirror of that replica's cache shrinks (its least recent entries go); when they agree it recovers.
 */
class MirrorCorrectionTest {
  private final ManualTicker ticker = new ManualTicker();
  private final Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
      .seed(5).build();
  private int requests;

  MirrorCorrectionTest() {
    // one replica; 1,000 blocks of 16 tokens of KV
    router.onSnapshot(ready("r0").kvBlocks(0, 1_000).kvBlockSizeTokens(16).build());
  }

  private int entries() {
    return router.index().slotEntries(router.fleet().get("r0").slot);
  }

  /** Routes {@code p} and reports that the engine reused {@code reused} tokens. */
  private RoutingDecision routeReporting(PromptKey p, int reused) {
    Request r = request("q-" + ++requests, p).build();
    RoutingDecision d = router.route(r);
    router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).cachedTokens(reused).build());
    return d;
  }

  @Test
  void overestimatesShrinkTheMirror_toWhatTheReplicaReallyKeeps() {
    for (int i = 0; i < 16; i++) {
      routeReporting(prompt(50 * 16, i), 0);
    }
    assertThat(entries()).as("16 prompts of 50 blocks, room for 1,000").isEqualTo(800);

    // the most recent prompt again: the index promises its 800 tokens, the engine reused none
    for (int i = 0; i < 8; i++) {
      RoutingDecision d = routeReporting(prompt(50 * 16, 15), 0);
      assertThat(d.matchedTokens()).as("kept: it is the most recent").isEqualTo(800);
    }

    // 8 overestimates: 1,000 x 0.9^8 = 430 blocks mirrored, the least recent prompts gone
    assertThat(entries()).isLessThanOrEqualTo((int) (1_000 * Math.pow(0.9, 8)));
    assertThat(routeReporting(prompt(50 * 16, 0), 0).matchedTokens()).isZero();
  }

  @Test
  void confirmedPredictionsLeaveTheMirrorAlone_andShortfallsBelowABlockAreNotMisses() {
    PromptKey p = prompt(50 * 16, 1);
    routeReporting(p, 0);
    for (int i = 0; i < 10; i++) {
      // the engine recomputes the last token: 799 of 800 reused is a confirmation
      routeReporting(p, 799);
    }

    assertThat(entries()).isEqualTo(50);
    assertThat(router.fleet().get("r0").capacityScale).isEqualTo(1.0);
  }

  @Test
  void exactModeReplicasAreNotCorrected_theirEventsAreTheTruth() {
    PromptKey p = prompt(50 * 16, 1);
    router.onKvEvent(KvEvent.stored("r0", 0, p.blockHashes()));
    for (int i = 0; i < 10; i++) {
      routeReporting(p, 0);
    }

    assertThat(entries()).isEqualTo(50);
    assertThat(router.fleet().get("r0").capacityScale).isEqualTo(1.0);
  }
}
