package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class PinnedPrefixesTest {
  @Test
  void aKeyIsHeldWhileARequestWithItIsInFlight() {
    PinnedPrefixes p = new PinnedPrefixes();
    assertThat(p.held(42)).isFalse();
    p.add(42);
    p.add(42);
    p.remove(42);
    assertThat(p.held(42)).isTrue();
    p.remove(42);
    assertThat(p.held(42)).isFalse();
  }

  @Test
  void removalsOfKeysNotCountedStopAtZero_andClearForgetsAll() {
    PinnedPrefixes p = new PinnedPrefixes();
    p.add(7);
    p.clear();
    assertThat(p.held(7)).isFalse();
    p.remove(7); // a send released after the replica's books were cleared
    p.add(7);
    assertThat(p.held(7)).isTrue();
  }

  @Test
  void theKeyNamesThePromptsFirstEightBlocks() {
    assertThat(PinnedPrefixes.key(TestData.prompt(4_000, 3)))
        .isEqualTo(PinnedPrefixes.key(TestData.prompt(200, 3)))
        .isNotEqualTo(PinnedPrefixes.key(TestData.prompt(200, 4)));
    // shorter prompts: their last block
    assertThat(PinnedPrefixes.key(TestData.prompt(32, 3)))
        .isNotEqualTo(PinnedPrefixes.key(TestData.prompt(200, 3)));
    assertThat(PinnedPrefixes.key(TestData.prompt(0, 3))).isZero();
  }

  @Provide
  Arbitrary<List<Integer>> ops() {
    // a positive value adds key (value % 40); a negative one removes a key in flight, if any
    return Arbitraries.integers().between(-200, 200).list().ofMaxSize(300);
  }

  /**
   * Whatever keys share counters, a key with a request in flight is held: the filter may claim a
   * prefix held that is not, never the reverse.
   */
  @Property(tries = 300)
  void noKeyInFlightIsEverReportedFree(@ForAll("ops") List<Integer> ops) {
    PinnedPrefixes p = new PinnedPrefixes();
    Map<Long, Integer> inFlight = new HashMap<>();
    for (int op : ops) {
      if (op >= 0) {
        long key = (op % 40) * 0x1_0000_0001L; // spread over slots, some sharing
        p.add(key);
        inFlight.merge(key, 1, Integer::sum);
      } else if (!inFlight.isEmpty()) {
        long key = inFlight.keySet().stream().sorted().skip(-op % inFlight.size()).findFirst()
            .orElseThrow();
        p.remove(key);
        inFlight.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
      }
      for (long key : inFlight.keySet()) {
        assertThat(p.held(key)).as("key %d in flight", key).isTrue();
      }
    }
  }

  /**
   * The queue a router alone estimates on a replica whose KV is 95% in use (800 tokens free) for
   * a 4,100-token request whose first 4,000 tokens its index places there: with another request
   * of the same prefix in flight the hit needs only its new tokens, which fit; with none, the
   * engine takes the cached 4,000 from its free blocks too, which do not.
   */
  private static double queueForAHit(boolean prefixInFlight) {
    ManualTicker ticker = new ManualTicker();
    RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
    Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
    router.onSnapshot(TestData.ready("r0").waitingRequests(0).kvUsage(0.2, 1_000)
        .kvBlockSizeTokens(16).observedAtNanos(0).build());
    Request document = TestData.request("doc", TestData.prompt(4_000, 7)).maxOutputTokens(100)
        .build();
    RoutingDecision d = router.route(document);
    ticker.advanceMillis(1_000);
    // a finished send gives the freed rate the wait is priced with
    router.onOutcome(TestData.outcome(document, d, OutcomeStatus.SUCCESS).build());
    if (prefixInFlight) {
      router.route(TestData.request("holder", TestData.prompt(4_050, 7)).maxOutputTokens(100)
          .build());
    }
    ticker.advanceMillis(10);
    router.onSnapshot(TestData.ready("r0").waitingRequests(0).kvUsage(0.95, 1_000)
        .kvBlockSizeTokens(16).observedAtNanos(ticker.read()).build());

    router.route(TestData.request("hit", TestData.prompt(4_100, 7)).maxOutputTokens(100).build());

    // the document's 4,000 tokens (and, with the holder routed, its 48 more)
    assertThat(policy.views.get("r0").matchedTokens()).isBetween(4_000, 4_048);
    return policy.views.get("r0").estimatedQueueMillis();
  }

  @Test
  void aHitOnAPrefixNoRequestHoldsWaitsForTheKvItTakes() {
    assertThat(queueForAHit(true)).isZero();
    assertThat(queueForAHit(false)).isPositive();
  }
}
