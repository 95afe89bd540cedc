package io.github.kvroute.telemetry.vllm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Payloads packed here field by field the way vLLM's msgspec encoder writes its structs
 * ({@code vllm/distributed/kv_events.py}), in each release's layout, then decoded.
 */
class VllmKvEventsTest {
  /** A hash above 2^63 - 1, from a vLLM 0.26 capture: unsigned 64-bit on the wire. */
  static final String BIG_HASH = "15760518052499183552";
  static final long BIG_HASH_BITS = new BigInteger(BIG_HASH).longValue();
  static final int[] TOKENS = {151644, 872, 198, 9064, 374, 279, 6722, 315, 5616, 30, 151645, 198,
      151644, 77091, 198, 151667};

  private static MessageBufferPacker packer() {
    return MessagePack.newDefaultBufferPacker();
  }

  private static void tokens(MessageBufferPacker p) throws IOException {
    p.packArrayHeader(TOKENS.length);
    for (int t : TOKENS) {
      p.packInt(t);
    }
  }

  /** vLLM before PR #42892: array_like structs, tag first; BlockStored with its seven fields. */
  static byte[] legacyArrays() throws IOException {
    MessageBufferPacker p = packer();
    p.packArrayHeader(2).packDouble(1761816192.1347115);
    p.packArrayHeader(3);
    p.packArrayHeader(7).packString("BlockStored");
    p.packArrayHeader(2).packLong(4284880390408332321L).packLong(1021382689678278767L);
    p.packNil();
    tokens(p);
    p.packInt(16).packNil().packString("GPU");
    p.packArrayHeader(3).packString("BlockRemoved");
    p.packArrayHeader(1).packLong(4284880390408332321L);
    p.packString("GPU");
    p.packArrayHeader(1).packString("AllBlocksCleared");
    return p.toByteArray();
  }

  /** vLLM 0.26: the batch an array with the rank, each event a map keyed by field, tag under "type". */
  static byte[] eventMaps() throws IOException {
    MessageBufferPacker p = packer();
    p.packArrayHeader(3).packDouble(1789095808.8378847);
    p.packArrayHeader(2);
    p.packMapHeader(11);
    p.packString("type").packString("BlockStored");
    p.packString("block_hashes").packArrayHeader(1).packBigInteger(new BigInteger(BIG_HASH));
    p.packString("parent_block_hash").packNil();
    p.packString("token_ids");
    tokens(p);
    p.packString("block_size").packInt(16);
    p.packString("lora_id").packNil();
    p.packString("medium").packString("GPU");
    p.packString("lora_name").packNil();
    p.packString("extra_keys").packArrayHeader(1).packNil();
    p.packString("group_idx").packInt(0);
    p.packString("kv_cache_spec_kind").packString("full_attention");
    p.packMapHeader(3);
    p.packString("type").packString("BlockRemoved");
    p.packString("block_hashes").packArrayHeader(1).packBigInteger(new BigInteger(BIG_HASH));
    p.packString("medium").packString("CPU");
    p.packInt(0);
    return p.toByteArray();
  }

  @Test
  void decodesTheLegacyArrayLayout() throws IOException {
    VllmKvEventBatch b = VllmKvEvents.decode(legacyArrays());
    assertThat(b.timestamp()).isEqualTo(1761816192.1347115);
    assertThat(b.dataParallelRank()).isEmpty();
    assertThat(b.events()).hasSize(3);
    VllmKvEvent stored = b.events().get(0);
    assertThat(stored.kind()).isEqualTo(VllmKvEvent.Kind.BLOCK_STORED);
    assertThat(stored.blockHashes()).containsExactly(4284880390408332321L, 1021382689678278767L);
    assertThat(stored.parentBlockHash()).isEmpty();
    assertThat(stored.tokenIds()).containsExactly(TOKENS);
    assertThat(stored.blockSize()).isEqualTo(16);
    assertThat(stored.medium()).contains("GPU");
    assertThat(stored.loraName()).isEmpty();
    assertThat(b.events().get(1).kind()).isEqualTo(VllmKvEvent.Kind.BLOCK_REMOVED);
    assertThat(b.events().get(1).blockHashes()).containsExactly(4284880390408332321L);
    assertThat(b.events().get(2)).isEqualTo(VllmKvEvent.allCleared());
  }

  @Test
  void decodesTaggedMapEventsWithUnsignedHashesAndUnknownFields() throws IOException {
    VllmKvEventBatch b = VllmKvEvents.decode(eventMaps());
    assertThat(b.dataParallelRank()).hasValue(0);
    VllmKvEvent stored = b.events().get(0);
    assertThat(stored.blockHashes()).containsExactly(BIG_HASH_BITS);
    assertThat(Long.toUnsignedString(stored.blockHashes()[0])).isEqualTo(BIG_HASH);
    assertThat(stored.groupIdx()).hasValue(0);
    assertThat(stored.tokenIds()).hasSize(16);
    assertThat(b.events().get(1).medium()).contains("CPU");
  }

  @Test
  void decodesAllMapsAndHashBytesAsTheirLow64Bits() throws IOException {
    byte[] digest = new byte[32];
    for (int i = 0; i < 32; i++) {
      digest[i] = (byte) (i * 7 + 1);
    }
    MessageBufferPacker p = packer();
    p.packMapHeader(3);
    p.packString("events").packArrayHeader(1);
    p.packMapHeader(3).packString("block_hashes").packArrayHeader(1).packBinaryHeader(32)
        .writePayload(digest);
    p.packString("type").packString("BlockRemoved");
    p.packString("medium").packNil();
    p.packString("ts").packInt(1700000000);
    p.packString("data_parallel_rank").packNil();
    VllmKvEventBatch b = VllmKvEvents.decode(p.toByteArray());

    assertThat(b.timestamp()).isEqualTo(1.7e9);
    assertThat(b.dataParallelRank()).isEmpty();
    // vLLM: int.from_bytes(digest, "big") & (2**64 - 1) -- the last eight bytes
    assertThat(b.events().get(0).blockHashes())
        .containsExactly(VllmBlockHasher.low64(digest))
        .containsExactly(0xA9B0B7BEC5CCD3DAL);
    assertThat(b.events().get(0).medium()).isEmpty();
  }

  @Test
  void anUnknownEventTypeIsSkippedAndCountedNotFatal() throws IOException {
    MessageBufferPacker p = packer();
    p.packArrayHeader(2).packDouble(1.0).packArrayHeader(3);
    p.packArrayHeader(2).packString("BlockPinned").packArrayHeader(0);
    p.packMapHeader(1).packString("type").packString("SomethingNew");
    p.packArrayHeader(1).packString("AllBlocksCleared");
    VllmKvEventBatch b = VllmKvEvents.decode(p.toByteArray());
    assertThat(b.skippedEvents()).isEqualTo(2);
    assertThat(b.events()).containsExactly(VllmKvEvent.allCleared());
  }

  @Test
  void malformedPayloadsFailWithAClearMessage() throws IOException {
    assertThatThrownBy(() -> VllmKvEvents.decode(new byte[] {(byte) 0xc1}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("payload: ");
    byte[] whole = legacyArrays();
    byte[] truncated = java.util.Arrays.copyOf(whole, whole.length - 5);
    assertThatThrownBy(() -> VllmKvEvents.decode(truncated))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("payload: ");
    // an array header claiming a million events in a few bytes allocates nothing
    byte[] huge = {(byte) 0x92, (byte) 0xcb, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xdd, 0, 0x10, 0, 0};
    assertThatThrownBy(() -> VllmKvEvents.decode(huge))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("events: length 1048576 with 0 bytes left");
    byte[] overInt = {(byte) 0x92, (byte) 0xcb, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xdd, (byte) 0xff,
        (byte) 0xff, (byte) 0xff, (byte) 0xff};
    assertThatThrownBy(() -> VllmKvEvents.decode(overInt))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MessageSizeException");
    MessageBufferPacker noHashes = packer();
    noHashes.packArrayHeader(2).packDouble(1.0).packArrayHeader(1);
    noHashes.packMapHeader(1).packString("type").packString("BlockStored");
    assertThatThrownBy(() -> VllmKvEvents.decode(noHashes.toByteArray()))
        .hasMessage("payload: events[0]: no block_hashes (expected: BlockStored to carry them)");
    MessageBufferPacker twoBatches = packer();
    twoBatches.writePayload(legacyArrays()).writePayload(legacyArrays());
    assertThatThrownBy(() -> VllmKvEvents.decode(twoBatches.toByteArray()))
        .hasMessageContaining("trailing bytes");
    assertThatThrownBy(() -> VllmKvEvents.decode(new byte[] {(byte) 0x91, (byte) 0xcb, 0, 0, 0, 0, 0, 0, 0, 0}))
        .hasMessageContaining("batch: 1 fields");
  }

  @Test
  void theEncoderWritesWhatTheLastArrayLayoutEngineWrote() throws IOException {
    // the array layout just before PR #42892: lora_name (no default) always written, the trailing
    // defaulted fields (extra_keys, group_idx, ...) left out
    MessageBufferPacker p = packer();
    p.packArrayHeader(2).packDouble(5.5).packArrayHeader(2);
    p.packArrayHeader(8).packString("BlockStored");
    p.packArrayHeader(1).packLong(42L);
    p.packLong(41L);
    tokens(p);
    p.packInt(16).packNil().packString("GPU").packString("sql-lora");
    p.packArrayHeader(3).packString("BlockRemoved").packArrayHeader(1).packLong(42L).packString("GPU");
    VllmKvEventBatch batch = VllmKvEventBatch.of(5.5, List.of(
        VllmKvEvent.stored(new long[] {42}, OptionalLong.of(41), TOKENS, 16).withLoraName("sql-lora"),
        VllmKvEvent.removed(42)));
    assertThat(VllmKvEvents.encode(batch, VllmKvEvents.Layout.ARRAYS)).isEqualTo(p.toByteArray());
    assertThat(VllmKvEvents.decode(p.toByteArray())).isEqualTo(batch);
  }

  @Property
  void everyLayoutRoundTrips(@ForAll("batches") VllmKvEventBatch batch,
      @ForAll VllmKvEvents.Layout layout) {
    assertThat(VllmKvEvents.decode(VllmKvEvents.encode(batch, layout))).isEqualTo(batch);
  }

  @Provide
  Arbitrary<VllmKvEventBatch> batches() {
    Arbitrary<long[]> hashes = Arbitraries.longs().array(long[].class).ofMaxSize(4);
    Arbitrary<VllmKvEvent> stored = Combinators.combine(hashes, Arbitraries.longs().injectNull(0.5),
            Arbitraries.integers().between(0, 200_000).array(int[].class).ofMaxSize(8),
            Arbitraries.integers().between(1, 64), Arbitraries.of("GPU", "CPU").injectNull(0.3),
            Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(5).injectNull(0.7),
            Arbitraries.integers().between(0, 3).injectNull(0.5))
        .as((h, parent, tokens, size, medium, lora, group) -> {
          VllmKvEvent e = VllmKvEvent.stored(h,
              parent == null ? OptionalLong.empty() : OptionalLong.of(parent), tokens, size)
              .withMedium(medium);
          e = lora == null ? e : e.withLoraName(lora);
          return group == null ? e : e.withGroupIdx(group);
        });
    Arbitrary<VllmKvEvent> removed = Combinators.combine(hashes,
            Arbitraries.integers().between(0, 3).injectNull(0.5))
        .as((h, group) -> group == null ? VllmKvEvent.removed(h) : VllmKvEvent.removed(h).withGroupIdx(group));
    Arbitrary<VllmKvEvent> event = Arbitraries.oneOf(stored, removed, Arbitraries.just(VllmKvEvent.allCleared()));
    return Combinators.combine(Arbitraries.doubles().between(0, 2e9), event.list().ofMaxSize(5),
            Arbitraries.integers().between(0, 7).injectNull(0.5))
        .as((ts, events, rank) -> new VllmKvEventBatch(ts, new ArrayList<>(events),
            rank == null ? OptionalInt.empty() : OptionalInt.of(rank), 0));
  }

  static List<VllmKvEvent> events(VllmKvEvent... e) {
    return List.of(e);
  }
}
