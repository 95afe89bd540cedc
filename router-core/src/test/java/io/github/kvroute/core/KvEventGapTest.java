package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static io.github.kvroute.core.TestData.storedPrefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.UpdateResult;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * KV-event sequence numbers: a gap degrades the replica's index to approximate mode until a resync
 * (CLEARED or a new epoch); duplicates and older numbers are dropped and counted.
 */
class KvEventGapTest {
  /** 640 tokens: 40 blocks of 16. */
  private static final PromptKey P = prompt(640, 1);
  private static final PromptKey OTHER = prompt(640, 2);

  private final ManualTicker ticker = new ManualTicker();
  private final Router router = Router.newBuilder().policy(new ForcedPolicy("r0")).ticker(ticker)
      .build();
  private int requests;

  private int matched(PromptKey p) {
    return router.route(request("q-" + ++requests, p).build()).matchedTokens();
  }

  private ReplicaStatus status() {
    return router.replicas().get(0);
  }

  private UpdateResult event(KvEvent e, long sequence) {
    return router.onKvEvent(e.withSequence(sequence));
  }

  @Test
  void inOrderEvents_stayExact_noGap() {
    router.onSnapshot(queued("r0", 0));
    assertThat(event(storedPrefix("r0", 0, P, 10), 0)).isEqualTo(UpdateResult.APPLIED);
    assertThat(event(KvEvent.stored("r0", 0, OTHER.blockHash(0)), 1))
        .isEqualTo(UpdateResult.APPLIED);
    assertThat(event(KvEvent.removed("r0", 0, P.blockHash(5)), 2)).isEqualTo(UpdateResult.APPLIED);

    assertThat(matched(P)).isEqualTo(80);
    assertThat(matched(P)).as("exact: the open attempt's insert is speculative").isEqualTo(640);
    assertThat(status().exactIndex()).isTrue();
    assertThat(status().degradedIndex()).isFalse();
    assertThat(router.stats().kvEventGaps()).isZero();
    assertThat(router.stats().outOfOrderKvEvents()).isZero();
  }

  @Test
  void aGap_degradesTheReplicaToApproximateMode_countedAndVisible() {
    router.onSnapshot(queued("r0", 0));
    event(storedPrefix("r0", 0, P, 10), 0);
    // sequence 1 was lost
    assertThat(event(KvEvent.stored("r0", 0, OTHER.blockHash(0)), 2))
        .isEqualTo(UpdateResult.APPLIED);

    assertThat(status().degradedIndex()).isTrue();
    assertThat(status().exactIndex()).isFalse();
    assertThat(router.stats().kvEventGaps()).isEqualTo(1);
    assertThat(router.index().isExact(router.fleet().get("r0").slot)).isFalse();
    // approximate again: what the router routed is believed resident, beside what events said
    assertThat(matched(P)).isEqualTo(160);
    assertThat(matched(P)).isEqualTo(640);
    // later events still apply, and keep the replica degraded
    event(KvEvent.removed("r0", 0, P.blockHash(0)), 3);
    assertThat(matched(P)).as("the removed root breaks the prefix").isZero();
    assertThat(status().degradedIndex()).isTrue();
  }

  @Test
  void aClearedEvent_resyncsTheReplica() {
    router.onSnapshot(queued("r0", 0));
    event(storedPrefix("r0", 0, P, 10), 0);
    event(storedPrefix("r0", 0, P, 12), 5);
    assertThat(status().degradedIndex()).isTrue();

    assertThat(event(KvEvent.cleared("r0", 0), 6)).isEqualTo(UpdateResult.APPLIED);
    event(storedPrefix("r0", 0, P, 4), 7);

    assertThat(status().degradedIndex()).isFalse();
    assertThat(status().exactIndex()).isTrue();
    assertThat(matched(P)).isEqualTo(64);
    assertThat(router.index().isExact(router.fleet().get("r0").slot)).as("exact again").isTrue();
    assertThat(router.stats().kvEventGaps()).isEqualTo(1);
  }

  @Test
  void aNewEpoch_resyncsTheReplica_andItsNumbersStartAfresh() {
    router.onSnapshot(queued("r0", 0));
    event(storedPrefix("r0", 0, P, 10), 40);
    event(storedPrefix("r0", 0, P, 12), 42);
    assertThat(status().degradedIndex()).isTrue();

    router.onSnapshot(ready("r0").epoch(1).estimatedQueueDelayMillis(0).build());
    assertThat(status().degradedIndex()).isFalse();
    assertThat(event(storedPrefix("r0", 1, P, 3), 0)).isEqualTo(UpdateResult.APPLIED);
    assertThat(event(storedPrefix("r0", 1, P, 4), 1)).isEqualTo(UpdateResult.APPLIED);

    assertThat(status().degradedIndex()).isFalse();
    assertThat(status().exactIndex()).isTrue();
    assertThat(router.stats().kvEventGaps()).isEqualTo(1);
    assertThat(router.stats().outOfOrderKvEvents()).isZero();
  }

  @Test
  void duplicatesAndOlderNumbers_areDroppedAndCounted_notGaps() {
    router.onSnapshot(queued("r0", 0));
    event(storedPrefix("r0", 0, P, 10), 0);
    event(KvEvent.removed("r0", 0, P.blockHash(8)), 1);

    // the batch of sequence 0 again (a retransmission) must not resurrect block 8
    assertThat(event(storedPrefix("r0", 0, P, 10), 0)).isEqualTo(UpdateResult.OUT_OF_ORDER);
    assertThat(event(KvEvent.removed("r0", 0, P.blockHash(8)), 1))
        .isEqualTo(UpdateResult.OUT_OF_ORDER);

    assertThat(matched(P)).isEqualTo(128);
    assertThat(router.stats().outOfOrderKvEvents()).isEqualTo(2);
    assertThat(router.stats().kvEventGaps()).isZero();
    assertThat(status().degradedIndex()).isFalse();
    assertThat(event(KvEvent.stored("r0", 0, OTHER.blockHash(0)), 2))
        .as("the next number follows the last applied").isEqualTo(UpdateResult.APPLIED);
    assertThat(router.stats().kvEventGaps()).isZero();
  }

  @Test
  void eventsWithoutNumbers_neverDegrade() {
    router.onSnapshot(queued("r0", 0));
    router.onKvEvent(storedPrefix("r0", 0, P, 10));
    router.onKvEvent(storedPrefix("r0", 0, P, 10));
    event(storedPrefix("r0", 0, P, 11), 7);
    router.onKvEvent(storedPrefix("r0", 0, P, 12));

    assertThat(status().degradedIndex()).isFalse();
    assertThat(router.stats().kvEventGaps()).isZero();
    assertThat(matched(P)).isEqualTo(192);
  }

  @Test
  void aNegativeSequenceNumber_isBadInput() {
    KvEvent e = KvEvent.cleared("r0", 0);
    assertThatThrownBy(() -> e.withSequence(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sequence: -1 (expected: >= 0)");
    assertThat(e.sequence()).isEmpty();
    assertThat(e.withSequence(3).sequence()).hasValue(3);
  }

  /**
   * Any order of numbers, duplicates included: each event is applied or dropped, never both; a drop
   * is exactly a number not above the last applied, a gap exactly a jump of more than one; the
   * replica is degraded exactly when a gap came after the last CLEARED.
   */
  @Property(tries = 200)
  void everyNumberedEventIsAppliedOrDroppedAsTheRulesSay(
      @ForAll @Size(max = 40) List<@IntRange(max = 30) Integer> numbers,
      @ForAll @Size(max = 40) List<Boolean> clears) {
    Router r = Router.newBuilder().policy(new ForcedPolicy("r0")).ticker(new ManualTicker()).build();
    r.onSnapshot(queued("r0", 0));
    long last = -1;
    long gaps = 0;
    long dropped = 0;
    boolean degraded = false;
    for (int i = 0; i < numbers.size(); i++) {
      int n = numbers.get(i);
      boolean clear = i < clears.size() && clears.get(i);
      KvEvent e = clear ? KvEvent.cleared("r0", 0) : storedPrefix("r0", 0, P, 1 + n % 8);
      UpdateResult result = r.onKvEvent(e.withSequence(n));
      if (last >= 0 && n <= last) {
        dropped++;
        assertThat(result).isEqualTo(UpdateResult.OUT_OF_ORDER);
        continue;
      }
      assertThat(result).isEqualTo(UpdateResult.APPLIED);
      if (last >= 0 && n > last + 1) {
        gaps++;
        degraded = true;
      }
      if (clear) {
        degraded = false;
      }
      last = n;
    }
    assertThat(r.stats().kvEventGaps()).isEqualTo(gaps);
    assertThat(r.stats().outOfOrderKvEvents()).isEqualTo(dropped);
    assertThat(r.replicas().get(0).degradedIndex()).isEqualTo(degraded);
  }
}
