package io.github.kvroute.telemetry.vllm;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.TelemetrySink;
import io.github.kvroute.api.UpdateResult;
import io.github.kvroute.core.Router;
import io.github.kvroute.telemetry.FirstCandidatePolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Batches in, numbered kvroute events out: gaps, duplicates, restarts, epochs, filters. */
class StreamSequencerTest {
  static final CacheNamespace NS = CacheNamespace.of("qwen");
  private final AtomicLong epoch = new AtomicLong(7);
  private final KvEventStream stream = KvEventStream.of("r0", "tcp://127.0.0.1:5557", NS);
  private final StreamSequencer sequencer =
      new StreamSequencer(stream, id -> OptionalLong.of(epoch.get()), 0);
  private final List<KvEvent> received = new ArrayList<>();
  private final TelemetrySink sink = new TelemetrySink() {
    @Override
    public UpdateResult onSnapshot(ReplicaSnapshot snapshot) {
      throw new AssertionError();
    }

    @Override
    public UpdateResult onKvEvent(KvEvent event) {
      received.add(event);
      return UpdateResult.APPLIED;
    }
  };

  static byte[] batch(VllmKvEvent... events) {
    return VllmKvEvents.encode(VllmKvEventBatch.of(1.0, List.of(events)), VllmKvEvents.Layout.EVENT_MAPS);
  }

  static VllmKvEvent stored(long... hashes) {
    return VllmKvEvent.stored(hashes, OptionalLong.empty(), new int[0], 16);
  }

  private List<Long> sequences() {
    return received.stream().map(e -> e.sequence().orElseThrow()).toList();
  }

  @Test
  void eventsAreNumberedConsecutivelyAcrossBatchesAndMappedLikePromptKeys() {
    sequencer.onMessage(0, batch(stored(11, 12), VllmKvEvent.removed(11)), false, sink);
    sequencer.onMessage(1, batch(VllmKvEvent.allCleared()), false, sink);

    assertThat(sequences()).containsExactly(0L, 1L, 2L);
    assertThat(received.get(0)).isEqualTo(KvEvent.storedEngineHashes("r0", 7, NS, 11, 12).withSequence(0));
    assertThat(received.get(0).blockKey(1)).isEqualTo(PromptKey.namespacedHash(NS, 12));
    assertThat(received.get(1).type()).isEqualTo(KvEvent.Type.REMOVED);
    assertThat(received.get(2)).isEqualTo(KvEvent.cleared("r0", 7).withSequence(2));
    KvStreamStatus s = sequencer.status();
    assertThat(s.batches()).isEqualTo(2);
    assertThat(s.delivered()).isEqualTo(3);
    assertThat(s.applied()).isEqualTo(3);
    assertThat(s.gaps()).isZero();
    assertThat(s.lastSequence()).hasValue(1);
  }

  @Test
  void beforeTheFirstBatchEveryEarlierOneIsMissing() {
    assertThat(sequencer.missingFrom(0)).isEmpty();
    assertThat(sequencer.missingFrom(7)).hasValue(0);
    sequencer.onMessage(7, batch(stored(1)), false, sink);
    assertThat(sequencer.missingFrom(8)).isEmpty();
    assertThat(sequencer.status().gaps()).as("joining late is no gap").isZero();
  }

  @Test
  void aLostBatchMakesTheNextEventSkipANumber() {
    sequencer.onMessage(0, batch(stored(1)), false, sink);
    sequencer.onMessage(3, batch(stored(2), stored(3)), false, sink);
    assertThat(sequences()).containsExactly(0L, 2L, 3L);
    assertThat(sequencer.status().gaps()).isEqualTo(1);
    assertThat(sequencer.status().missedBatches()).isEqualTo(2);
    assertThat(sequencer.missingFrom(5)).hasValue(4);
    assertThat(sequencer.missingFrom(4)).isEmpty();
  }

  @Test
  void anUndecodablePayloadIsCountedAndItsLossShowsAsAGap() {
    sequencer.onMessage(0, batch(stored(1)), false, sink);
    sequencer.onMessage(1, new byte[] {1, 2, 3}, false, sink);
    sequencer.onMessage(2, batch(stored(2)), false, sink);
    assertThat(sequences()).containsExactly(0L, 2L);
    assertThat(sequencer.status().malformedMessages()).isEqualTo(1);
    assertThat(sequencer.status().lastError().orElseThrow()).startsWith("batch 1: payload: ");
  }

  @Test
  void replayedBatchesFillAGapAndDuplicatesAreDropped() {
    sequencer.onMessage(0, batch(stored(1)), false, sink);
    sequencer.onMessage(0, batch(stored(1)), true, sink);  // replay sends from the start number
    sequencer.onMessage(1, batch(stored(2)), true, sink);
    sequencer.onMessage(2, batch(stored(3)), true, sink);
    sequencer.onMessage(3, batch(stored(4)), false, sink);
    assertThat(sequences()).containsExactly(0L, 1L, 2L, 3L);
    KvStreamStatus s = sequencer.status();
    assertThat(s.replayedBatches()).isEqualTo(2);
    assertThat(s.duplicateBatches()).isEqualTo(1);
    assertThat(s.gaps()).isZero();
  }

  @Test
  void aPublisherRestartGoesOnNumberingAndANewEpochStartsAtZero() {
    sequencer.onMessage(0, batch(stored(1)), false, sink);
    sequencer.onMessage(1, batch(stored(2)), false, sink);
    sequencer.onMessage(0, batch(stored(3)), false, sink);   // new engine process, epoch not seen yet
    assertThat(sequencer.status().publisherRestarts()).isEqualTo(1);
    epoch.set(8);                                            // the poller sees the new epoch
    sequencer.onMessage(1, batch(stored(4)), false, sink);
    assertThat(received).extracting(KvEvent::epoch).containsExactly(7L, 7L, 7L, 8L);
    assertThat(sequences()).containsExactly(0L, 1L, 2L, 0L);
  }

  @Test
  void otherTiersAndGroupsAreIgnoredAndUnknownEpochsDropped() {
    sequencer.onMessage(0, batch(stored(1).withMedium("CPU"), stored(2).withGroupIdx(1),
        stored(3).withGroupIdx(0), stored(4).withMedium(null)), false, sink);
    assertThat(received).extracting(e -> e.blockCount()).containsExactly(1, 1);
    assertThat(sequencer.status().ignoredEvents()).isEqualTo(2);

    StreamSequencer noEpoch = new StreamSequencer(stream, id -> OptionalLong.empty(), 0);
    noEpoch.onMessage(0, batch(stored(1)), false, sink);
    assertThat(noEpoch.status().droppedWithoutEpoch()).isEqualTo(1);
    assertThat(received).hasSize(2);
  }

  @Test
  void aThrowingSinkIsContained() {
    TelemetrySink throwing = new TelemetrySink() {
      @Override
      public UpdateResult onSnapshot(ReplicaSnapshot snapshot) {
        throw new AssertionError();
      }

      @Override
      public UpdateResult onKvEvent(KvEvent event) {
        throw new IllegalStateException("down");
      }
    };
    sequencer.onMessage(0, batch(stored(1), stored(2)), false, throwing);
    assertThat(sequencer.status().sinkFailures()).isEqualTo(2);
    assertThat(sequencer.status().lastError().orElseThrow()).contains("down");
  }

  @Test
  void theRouterSeesAGapAsADegradedIndex() {
    ManualTicker ticker = new ManualTicker();
    try (Router router = Router.newBuilder().policy(new FirstCandidatePolicy()).ticker(ticker).build()) {
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("r0").model("qwen").epoch(7).build());
      sequencer.onMessage(0, batch(stored(1)), false, router);
      sequencer.onMessage(2, batch(stored(2)), false, router);
      assertThat(sequencer.status().applied()).isEqualTo(2);
      assertThat(router.stats().kvEventGaps()).isEqualTo(1);
      assertThat(router.replicas().get(0).degradedIndex()).isTrue();
    }
  }

  /**
   * The documented mapping end to end: the gateway hashes a prompt's tokens as vLLM does
   * (VllmBlockHasher) and keys the request with PromptKey.ofBlockHashes in the stream's namespace; the
   * events of the engine that cached that prompt then match it block for block.
   */
  @Test
  void requestsKeyedWithVllmsHashesMatchWhatItsEventsStored() {
    int[] tokens = VllmBlockHasherTest.PROMPT;                    // 33 tokens: 2 full blocks of 16
    VllmBlockHasher hasher = VllmBlockHasher.sha256Cbor(16, "0");
    long[] engineHashes = hasher.blockHashes(tokens);             // what vLLM publishes
    ManualTicker ticker = new ManualTicker();
    try (Router router = Router.newBuilder().policy(new FirstCandidatePolicy()).ticker(ticker)
        .blockSizeTokens(16).build()) {
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("r0").model("qwen").epoch(7).build());
      sequencer.onMessage(0, batch(VllmKvEvent.stored(engineHashes, OptionalLong.empty(),
          java.util.Arrays.copyOf(tokens, 32), 16)), false, router);
      assertThat(router.replicas().get(0).exactIndex()).isTrue();

      PromptKey key = PromptKey.ofBlockHashes(hasher.blockHashes(tokens), 16, tokens.length, NS);
      Request request = Request.newBuilder().id("q1").model("qwen").prompt(key).build();
      assertThat(router.route(request).matchedTokens()).isEqualTo(32);

      PromptKey unrelated = PromptKey.ofBlockHashes(
          VllmBlockHasher.sha256Cbor(16, "1").blockHashes(tokens), 16, tokens.length, NS);
      assertThat(router.route(Request.newBuilder().id("q2").model("qwen").prompt(unrelated).build())
          .matchedTokens()).as("another PYTHONHASHSEED: nothing matches").isZero();
    }
  }
}
