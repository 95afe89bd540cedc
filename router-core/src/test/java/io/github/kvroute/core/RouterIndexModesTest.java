package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static io.github.kvroute.core.TestData.storedPrefix;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import org.junit.jupiter.api.Test;

/** How the router feeds its prefix index: approximate (what it routed) or exact (KV events). */
class RouterIndexModesTest {
  /** 640 tokens: 40 blocks of 16. */
  private static final PromptKey P = prompt(640, 1);

  private final ManualTicker ticker = new ManualTicker();
  private final Router router = Router.newBuilder().policy(new ForcedPolicy("r0")).ticker(ticker)
      .build();
  private int requests;

  private RoutingDecision route(PromptKey p) {
    return router.route(request("q-" + ++requests, p).build());
  }

  @Test
  void approximateMode_whatWasRoutedIsBelievedResident() {
    router.onSnapshot(queued("r0", 0));

    assertThat(route(P).matchedTokens()).isZero();
    assertThat(route(P).matchedTokens()).isEqualTo(640);
    assertThat(router.index().isExact(router.fleet().get("r0").slot)).isFalse();
  }

  @Test
  void approximateMode_mirrorsTheReportedKvCapacity() {
    // 10 engine blocks of 16 tokens: room for 10 of the prompt's 40 index blocks
    router.onSnapshot(ready("r0").kvBlocks(0, 10).kvBlockSizeTokens(16).build());

    route(P);

    assertThat(route(P).matchedTokens()).isEqualTo(160);
  }

  @Test
  void approximateMode_aSmallerCapacityEvictsTheLeastRecentBlocks() {
    router.onSnapshot(ready("r0").kvBlocks(0, 100).kvBlockSizeTokens(16).build());
    route(P);
    assertThat(route(P).matchedTokens()).isEqualTo(640);

    router.onSnapshot(ready("r0").kvBlocks(0, 5).kvBlockSizeTokens(32).build());

    // 5 x 32 = 160 tokens = 10 index blocks; the prompt's leading blocks were touched last
    assertThat(route(P).matchedTokens()).isEqualTo(160);
  }

  @Test
  void exactMode_onlyKvEventsWriteForGood() {
    router.onSnapshot(queued("r0", 0));
    assertThat(router.onKvEvent(storedPrefix("r0", 0, P, 10))).isEqualTo(UpdateResult.APPLIED);

    assertThat(route(P).matchedTokens()).isEqualTo(160);
    assertThat(route(P).matchedTokens()).as("speculative while attempts are open").isEqualTo(640);

    router.onKvEvent(KvEvent.removed("r0", 0, P.blockHash(5)));
    assertThat(route(P).matchedTokens()).isEqualTo(80);
    router.onKvEvent(KvEvent.cleared("r0", 0));
    assertThat(route(P).matchedTokens()).isZero();
    assertThat(router.index().isExact(router.fleet().get("r0").slot)).isTrue();
  }

  @Test
  void mixedFleet_eachReplicaInItsOwnMode() {
    RecordingPolicy policy = new RecordingPolicy(new ForcedPolicy("approx"));
    Router mixed = Router.newBuilder().policy(policy).ticker(ticker).build();
    mixed.onSnapshot(queued("approx", 0));
    mixed.onSnapshot(queued("exact", 0));
    mixed.onKvEvent(storedPrefix("exact", 0, P, 20));

    mixed.route(request("a", P).build());
    mixed.route(request("b", P).build());

    assertThat(policy.views.get("approx").matchedTokens()).isEqualTo(640);
    assertThat(policy.views.get("exact").matchedTokens()).isEqualTo(320);
  }

  @Test
  void engineHashesMapToTheSameKeysAsPromptsBuiltFromThem() {
    long[] engine = {11, 22, 33, 44};
    PromptKey fromEngine = PromptKey.ofBlockHashes(engine, 16, 64, TestData.NS);
    router.onSnapshot(queued("r0", 0));

    router.onKvEvent(KvEvent.storedEngineHashes("r0", 0, TestData.NS, 11, 22, 33));

    assertThat(route(fromEngine).matchedTokens()).isEqualTo(48);
  }
}
