package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.request;
import static io.github.kvroute.core.TestData.storedPrefix;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Exact mode (KV events) still sees what this router routed while the engine has not stored it yet:
 * the insert is speculative and lasts while its attempt is open; only events write for good.
 */
class SpeculativeInsertTest {
  /** 640 tokens: 40 blocks of 16. */
  private static final PromptKey P = prompt(640, 1);

  private final ManualTicker ticker = new ManualTicker();
  private final Router router = Router.newBuilder().policy(new ForcedPolicy("r0")).ticker(ticker)
      .leaseTimeout(Duration.ofSeconds(10)).build();
  private int requests;

  private Request next() {
    return request("q-" + ++requests, P).build();
  }

  /** The match a fresh request for P sees on r0 now (its own attempt stays open). */
  private int matchedNow() {
    return router.route(next()).matchedTokens();
  }

  private void exactWithTenStoredBlocks() {
    router.onSnapshot(queued("r0", 0));
    assertThat(router.onKvEvent(storedPrefix("r0", 0, P, 10))).isEqualTo(UpdateResult.APPLIED);
    assertThat(router.replicas().get(0).exactIndex()).isTrue();
  }

  @Test
  void whileTheAttemptIsOpen_theNextDecisionSeesItsPrefix() {
    exactWithTenStoredBlocks();

    Request first = next();
    assertThat(router.route(first).matchedTokens()).isEqualTo(160);

    // the engine has not stored the rest yet (its prefill is queued): the router is not blind to it
    assertThat(matchedNow()).isEqualTo(640);
    assertThat(router.replicas().get(0).exactIndex()).isTrue();
  }

  @Test
  void anUnconfirmedPrefixIsTakenBack_whenItsAttemptsEnd() {
    exactWithTenStoredBlocks();
    Request first = next();
    RoutingDecision d = router.route(first);

    assertThat(router.onOutcome(outcome(first, d, OutcomeStatus.SUCCESS).build()))
        .isEqualTo(UpdateResult.APPLIED);

    Request probe = next();
    RoutingDecision p = router.route(probe);
    assertThat(p.matchedTokens()).as("only what the events said").isEqualTo(160);
    router.onOutcome(outcome(probe, p, OutcomeStatus.SUCCESS).build());
    assertThat(router.replicas().get(0).indexEntries()).isEqualTo(10);
  }

  @Test
  void whatAnEventConfirmed_staysAfterTheAttemptEnds() {
    exactWithTenStoredBlocks();
    Request first = next();
    RoutingDecision d = router.route(first);

    router.onKvEvent(storedPrefix("r0", 0, P, 30));
    router.onOutcome(outcome(first, d, OutcomeStatus.SUCCESS).build());

    Request probe = next();
    RoutingDecision p = router.route(probe);
    assertThat(p.matchedTokens()).isEqualTo(30 * 16);
    router.onOutcome(outcome(probe, p, OutcomeStatus.SUCCESS).build());
    assertThat(router.replicas().get(0).indexEntries()).isEqualTo(30);
  }

  @Test
  void aRemovalEventWins_overAnOpenSpeculation() {
    exactWithTenStoredBlocks();
    router.route(next());

    router.onKvEvent(KvEvent.removed("r0", 0, P.blockHash(3)));

    assertThat(matchedNow()).as("the engine evicted block 3").isEqualTo(3 * 16);
  }

  @Test
  void anExpiredAttempt_takesItsSpeculationWithIt() {
    exactWithTenStoredBlocks();
    router.route(next());

    ticker.advanceMillis(10_001);
    router.stats();

    assertThat(router.stats().expired()).isEqualTo(1);
    assertThat(matchedNow()).isEqualTo(160);
  }

  @Test
  void aRestartDropsSpeculationWithTheOldCache() {
    exactWithTenStoredBlocks();
    router.route(next());

    router.onKvEvent(KvEvent.cleared("r0", 1));
    router.onSnapshot(TestData.ready("r0").epoch(1).build());

    assertThat(matchedNow()).isZero();
  }
}
