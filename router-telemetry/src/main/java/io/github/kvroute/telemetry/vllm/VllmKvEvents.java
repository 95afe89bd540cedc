package io.github.kvroute.telemetry.vllm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessagePacker;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * vLLM's KV-event wire format: the msgpack payload of one ZeroMQ message, decoded into a
 * {@link VllmKvEventBatch} and encoded from one (for emulated engines and tests).
 *
 * <h2>Design notes</h2>
 * vLLM encodes its msgspec structs ({@code vllm/distributed/kv_events.py}). The batch is
 * {@code (ts, events, data_parallel_rank)}; each event is a tagged struct ({@code tag=True}: the tag is
 * the class name). Releases differ in layout, so the decoder reads every one of them:
 * <ul>
 *   <li>{@link Layout#ARRAYS}: every struct {@code array_like} (vLLM before PR #42892): the batch
 *       {@code [ts, [events], rank?]}, an event {@code ["BlockStored", block_hashes,
 *       parent_block_hash, token_ids, block_size, lora_id, medium, lora_name?, extra_keys?,
 *       group_idx?, ...]}, with trailing fields left out when at their default;
 *   <li>{@link Layout#EVENT_MAPS}: the batch an array, each event a map keyed by field name with the tag
 *       under {@code "type"} (vLLM after PR #42892; what vLLM 0.26 publishes);
 *   <li>{@link Layout#MAPS}: the batch a map too ({@code {"ts", "events", "data_parallel_rank"}}).
 * </ul>
 * Unknown map keys and trailing array fields are ignored (vLLM adds fields); an event with an unknown
 * tag is skipped and counted ({@link VllmKvEventBatch#skippedEvents()}); anything else malformed fails
 * the batch. Lengths are checked against the bytes left before anything is allocated, so a corrupt
 * header cannot ask for gigabytes.
 *
 * <p>Stateless and thread-safe.
 */
public final class VllmKvEvents {
  /** vLLM's medium for the GPU KV cache. */
  public static final String MEDIUM_GPU = "GPU";

  /** How the structs are laid out on the wire; see the class notes. Immutable and thread-safe. */
  public enum Layout {
    /** Every struct as a positional array (vLLM before PR #42892). */
    ARRAYS,
    /** The batch as an array, each event as a map with {@code "type"} (vLLM 0.26). */
    EVENT_MAPS,
    /** The batch and each event as maps. */
    MAPS
  }

  private VllmKvEvents() {}

  /**
   * Decodes one payload.
   *
   * @param payload the third frame of a KV-event message
   * @return the batch, its events in the engine's order
   * @throws IllegalArgumentException if {@code payload} is not a KV-event batch in any layout
   */
  public static VllmKvEventBatch decode(byte[] payload) {
    if (payload == null) {
      throw new NullPointerException("payload: null (expected: a msgpack KV-event batch)");
    }
    try (MessageUnpacker in = MessagePack.newDefaultUnpacker(payload)) {
      VllmKvEventBatch batch = new Decoder(in, payload.length).batch();
      if (in.hasNext()) {
        throw new IllegalArgumentException("payload: trailing bytes after the batch (expected: one batch)");
      }
      return batch;
    } catch (MessagePackException | IOException e) {
      throw new IllegalArgumentException("payload: not msgpack (" + e + ")", e);
    }
  }

  /**
   * {@return the msgpack payload of {@code batch}, as vLLM's msgspec encoder writes it in
   * {@code layout}}
   *
   * @param batch the events to encode
   * @param layout which vLLM release's layout
   */
  public static byte[] encode(VllmKvEventBatch batch, Layout layout) {
    try (MessagePacker out = MessagePack.newDefaultBufferPacker()) {
      new Encoder(out, layout).batch(batch);
      return ((org.msgpack.core.MessageBufferPacker) out).toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads one batch; every length is checked against the payload size first. */
  private static final class Decoder {
    private final MessageUnpacker in;
    private final int size;

    Decoder(MessageUnpacker in, int size) {
      this.in = in;
      this.size = size;
    }

    VllmKvEventBatch batch() throws IOException {
      ValueType t = in.getNextFormat().getValueType();
      double ts;
      List<VllmKvEvent> events = new ArrayList<>();
      int[] skipped = {0};
      OptionalInt rank = OptionalInt.empty();
      if (t == ValueType.ARRAY) {
        int n = length(in.unpackArrayHeader(), "batch");
        if (n < 2) {
          throw bad("batch: " + n + " fields (expected: [ts, events, rank?])");
        }
        ts = number("ts");
        events(events, skipped);
        if (n >= 3) {
          rank = optionalInt("data_parallel_rank");
        }
        skip(n - 3);
      } else if (t == ValueType.MAP) {
        int n = length(in.unpackMapHeader(), "batch");
        Double tsValue = null;
        boolean sawEvents = false;
        for (int i = 0; i < n; i++) {
          String key = key();
          switch (key) {
            case "ts" -> tsValue = number("ts");
            case "events" -> {
              events(events, skipped);
              sawEvents = true;
            }
            case "data_parallel_rank" -> rank = optionalInt("data_parallel_rank");
            default -> in.skipValue();
          }
        }
        if (tsValue == null || !sawEvents) {
          throw bad("batch: missing " + (tsValue == null ? "ts" : "events") + " (expected: ts and events)");
        }
        ts = tsValue;
      } else {
        throw bad("batch: " + t + " (expected: an array or a map)");
      }
      return new VllmKvEventBatch(ts, events, rank, skipped[0]);
    }

    private void events(List<VllmKvEvent> events, int[] skipped) throws IOException {
      if (in.getNextFormat().getValueType() != ValueType.ARRAY) {
        throw bad("events: " + in.getNextFormat().getValueType() + " (expected: an array)");
      }
      int n = length(in.unpackArrayHeader(), "events");
      for (int i = 0; i < n; i++) {
        Optional<VllmKvEvent> e = event(i);
        if (e.isPresent()) {
          events.add(e.get());
        } else {
          skipped[0]++;
        }
      }
    }

    /** Field values as read, before they are checked against the event's kind. */
    private static final class Fields {
      long[] hashes;
      OptionalLong parent = OptionalLong.empty();
      int[] tokens = new int[0];
      int blockSize;
      Optional<String> lora = Optional.empty();
      Optional<String> medium = Optional.empty();
      OptionalInt group = OptionalInt.empty();
    }

    private Optional<VllmKvEvent> event(int index) throws IOException {
      String where = "events[" + index + "]";
      ValueType t = in.getNextFormat().getValueType();
      Fields f = new Fields();
      Optional<VllmKvEvent.Kind> kind;
      if (t == ValueType.ARRAY) {
        int n = length(in.unpackArrayHeader(), where);
        if (n < 1) {
          throw bad(where + ": empty (expected: [tag, fields...])");
        }
        kind = VllmKvEvent.Kind.ofTag(string(where + ".tag"));
        if (kind.isEmpty()) {
          skip(n - 1);
          return Optional.empty();
        }
        positional(kind.get(), n - 1, f, where);
      } else if (t == ValueType.MAP) {
        int n = length(in.unpackMapHeader(), where);
        kind = Optional.empty();
        boolean tagged = false;
        for (int i = 0; i < n; i++) {
          String key = key();
          if (key.equals("type")) {
            kind = VllmKvEvent.Kind.ofTag(string(where + ".type"));
            tagged = true;
          } else {
            named(key, f, where);
          }
        }
        if (!tagged) {
          throw bad(where + ": no \"type\" (expected: a tagged event)");
        }
        if (kind.isEmpty()) {
          return Optional.empty();
        }
      } else {
        throw bad(where + ": " + t + " (expected: an array or a map)");
      }
      return Optional.of(build(kind.get(), f, where));
    }

    private VllmKvEvent build(VllmKvEvent.Kind kind, Fields f, String where) {
      if (kind != VllmKvEvent.Kind.ALL_BLOCKS_CLEARED && f.hashes == null) {
        throw bad(where + ": no block_hashes (expected: " + kind.tag() + " to carry them)");
      }
      if (kind == VllmKvEvent.Kind.BLOCK_STORED && f.blockSize < 1) {
        throw bad(where + ".block_size: " + f.blockSize + " (expected: >= 1)");
      }
      return VllmKvEvent.decoded(kind, f.hashes == null ? new long[0] : f.hashes, f.parent, f.tokens,
          kind == VllmKvEvent.Kind.BLOCK_STORED ? f.blockSize : 0, f.lora, f.medium, f.group);
    }

    /** The fields after the tag of an array-like event, by position. */
    private void positional(VllmKvEvent.Kind kind, int n, Fields f, String where) throws IOException {
      String[] order = switch (kind) {
        case BLOCK_STORED -> new String[] {"block_hashes", "parent_block_hash", "token_ids", "block_size",
            "lora_id", "medium", "lora_name", "extra_keys", "group_idx"};
        case BLOCK_REMOVED -> new String[] {"block_hashes", "medium", "group_idx"};
        case ALL_BLOCKS_CLEARED -> new String[0];
      };
      for (int i = 0; i < n; i++) {
        if (i < order.length) {
          named(order[i], f, where);
        } else {
          in.skipValue();
        }
      }
    }

    private void named(String key, Fields f, String where) throws IOException {
      String field = where + "." + key;
      switch (key) {
        case "block_hashes" -> f.hashes = hashes(field);
        case "parent_block_hash" -> f.parent = in.tryUnpackNil() ? OptionalLong.empty()
            : OptionalLong.of(hash(field));
        case "token_ids" -> f.tokens = tokens(field);
        case "block_size" -> f.blockSize = intValue(field);
        case "medium" -> f.medium = optionalString(field);
        case "lora_name" -> f.lora = in.getNextFormat().getValueType() == ValueType.STRING
            || in.getNextFormat() == MessageFormat.NIL ? optionalString(field) : skipped();
        case "group_idx" -> f.group = in.getNextFormat().getValueType() == ValueType.INTEGER
            ? OptionalInt.of(intValue(field)) : skippedInt();
        default -> in.skipValue();
      }
    }

    private Optional<String> skipped() throws IOException {
      in.skipValue();
      return Optional.empty();
    }

    private OptionalInt skippedInt() throws IOException {
      in.skipValue();
      return OptionalInt.empty();
    }

    private long[] hashes(String field) throws IOException {
      if (in.getNextFormat().getValueType() != ValueType.ARRAY) {
        throw bad(field + ": " + in.getNextFormat().getValueType() + " (expected: an array of hashes)");
      }
      int n = length(in.unpackArrayHeader(), field);
      long[] hashes = new long[n];
      for (int i = 0; i < n; i++) {
        hashes[i] = hash(field + "[" + i + "]");
      }
      return hashes;
    }

    /** An int (signed or unsigned 64-bit) or raw hash bytes, as the low 64 bits. */
    private long hash(String field) throws IOException {
      MessageFormat f = in.getNextFormat();
      if (f == MessageFormat.UINT64) {
        BigInteger v = in.unpackBigInteger();
        return v.longValue();
      }
      if (f.getValueType() == ValueType.INTEGER) {
        return in.unpackLong();
      }
      if (f.getValueType() == ValueType.BINARY) {
        int n = length(in.unpackBinaryHeader(), field);
        byte[] bytes = in.readPayload(n);
        long v = 0;
        for (int i = Math.max(0, n - 8); i < n; i++) {
          v = (v << 8) | (bytes[i] & 0xFF);
        }
        return v;
      }
      throw bad(field + ": " + f.getValueType() + " (expected: an integer or bytes)");
    }

    private int[] tokens(String field) throws IOException {
      if (in.getNextFormat().getValueType() != ValueType.ARRAY) {
        throw bad(field + ": " + in.getNextFormat().getValueType() + " (expected: an array of token ids)");
      }
      int n = length(in.unpackArrayHeader(), field);
      int[] tokens = new int[n];
      for (int i = 0; i < n; i++) {
        tokens[i] = intValue(field + "[" + i + "]");
      }
      return tokens;
    }

    private int intValue(String field) throws IOException {
      if (in.getNextFormat().getValueType() != ValueType.INTEGER) {
        throw bad(field + ": " + in.getNextFormat().getValueType() + " (expected: an integer)");
      }
      long v = in.unpackLong();
      if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
        throw bad(field + ": " + v + " (expected: a 32-bit integer)");
      }
      return (int) v;
    }

    private OptionalInt optionalInt(String field) throws IOException {
      return in.tryUnpackNil() ? OptionalInt.empty() : OptionalInt.of(intValue(field));
    }

    private double number(String field) throws IOException {
      ValueType t = in.getNextFormat().getValueType();
      if (t == ValueType.FLOAT) {
        return in.unpackDouble();
      }
      if (t == ValueType.INTEGER) {
        return in.unpackLong();
      }
      throw bad(field + ": " + t + " (expected: a number)");
    }

    private String string(String field) throws IOException {
      if (in.getNextFormat().getValueType() != ValueType.STRING) {
        throw bad(field + ": " + in.getNextFormat().getValueType() + " (expected: a string)");
      }
      int n = length(in.unpackRawStringHeader(), field);
      return new String(in.readPayload(n), java.nio.charset.StandardCharsets.UTF_8);
    }

    private Optional<String> optionalString(String field) throws IOException {
      return in.tryUnpackNil() ? Optional.empty() : Optional.of(string(field));
    }

    private String key() throws IOException {
      return string("map key");
    }

    private void skip(int n) throws IOException {
      for (int i = 0; i < n; i++) {
        in.skipValue();
      }
    }

    /** A length from a header, checked against the bytes left: each element takes at least one. */
    private int length(int n, String field) {
      long left = size - in.getTotalReadBytes();
      if (n < 0 || n > left) {
        throw bad(field + ": length " + Integer.toUnsignedString(n) + " with " + left
            + " bytes left (expected: a length the payload can hold)");
      }
      return n;
    }

    private static IllegalArgumentException bad(String message) {
      return new IllegalArgumentException("payload: " + message);
    }
  }

  /** Writes structs as vLLM's msgspec encoder does in one layout. */
  private static final class Encoder {
    private final MessagePacker out;
    private final Layout layout;

    Encoder(MessagePacker out, Layout layout) {
      this.out = out;
      this.layout = java.util.Objects.requireNonNull(layout, "layout");
    }

    void batch(VllmKvEventBatch b) throws IOException {
      boolean rank = b.dataParallelRank().isPresent();
      if (layout == Layout.MAPS) {
        out.packMapHeader(rank ? 3 : 2);
        out.packString("ts").packDouble(b.timestamp());
        out.packString("events");
        events(b.events());
        if (rank) {
          out.packString("data_parallel_rank").packInt(b.dataParallelRank().getAsInt());
        }
      } else {
        out.packArrayHeader(rank ? 3 : 2);
        out.packDouble(b.timestamp());
        events(b.events());
        if (rank) {
          out.packInt(b.dataParallelRank().getAsInt());
        }
      }
    }

    private void events(List<VllmKvEvent> events) throws IOException {
      out.packArrayHeader(events.size());
      for (VllmKvEvent e : events) {
        if (layout == Layout.ARRAYS) {
          positional(e);
        } else {
          named(e);
        }
      }
    }

    /** Tag, then fields in declaration order; defaults at the end left out (omit_defaults). */
    private void positional(VllmKvEvent e) throws IOException {
      switch (e.kind()) {
        case BLOCK_STORED -> {
          boolean group = e.groupIdx().isPresent();
          out.packArrayHeader(group ? 10 : 8);
          out.packString(e.kind().tag());
          hashes(e.blockHashes());
          parent(e);
          tokens(e.tokenIds());
          out.packInt(e.blockSize());
          out.packNil(); // lora_id
          optional(e.medium());
          optional(e.loraName());
          if (group) {
            out.packNil(); // extra_keys
            out.packInt(e.groupIdx().getAsInt());
          }
        }
        case BLOCK_REMOVED -> {
          boolean group = e.groupIdx().isPresent();
          out.packArrayHeader(group ? 4 : 3);
          out.packString(e.kind().tag());
          hashes(e.blockHashes());
          optional(e.medium());
          if (group) {
            out.packInt(e.groupIdx().getAsInt());
          }
        }
        case ALL_BLOCKS_CLEARED -> {
          out.packArrayHeader(1);
          out.packString(e.kind().tag());
        }
      }
    }

    private void named(VllmKvEvent e) throws IOException {
      boolean group = e.groupIdx().isPresent();
      switch (e.kind()) {
        case BLOCK_STORED -> {
          out.packMapHeader(group ? 9 : 8);
          out.packString("type").packString(e.kind().tag());
          out.packString("block_hashes");
          hashes(e.blockHashes());
          out.packString("parent_block_hash");
          parent(e);
          out.packString("token_ids");
          tokens(e.tokenIds());
          out.packString("block_size").packInt(e.blockSize());
          out.packString("lora_id").packNil();
          out.packString("medium");
          optional(e.medium());
          out.packString("lora_name");
          optional(e.loraName());
          if (group) {
            out.packString("group_idx").packInt(e.groupIdx().getAsInt());
          }
        }
        case BLOCK_REMOVED -> {
          out.packMapHeader(group ? 4 : 3);
          out.packString("type").packString(e.kind().tag());
          out.packString("block_hashes");
          hashes(e.blockHashes());
          out.packString("medium");
          optional(e.medium());
          if (group) {
            out.packString("group_idx").packInt(e.groupIdx().getAsInt());
          }
        }
        case ALL_BLOCKS_CLEARED -> {
          out.packMapHeader(1);
          out.packString("type").packString(e.kind().tag());
        }
      }
    }

    /** Hashes as vLLM publishes them: unsigned 64-bit integers. */
    private void hashes(long[] hashes) throws IOException {
      out.packArrayHeader(hashes.length);
      for (long h : hashes) {
        unsigned(h);
      }
    }

    private void unsigned(long h) throws IOException {
      if (h >= 0) {
        out.packLong(h);
      } else {
        out.packBigInteger(new BigInteger(Long.toUnsignedString(h)));
      }
    }

    private void parent(VllmKvEvent e) throws IOException {
      if (e.parentBlockHash().isPresent()) {
        unsigned(e.parentBlockHash().getAsLong());
      } else {
        out.packNil();
      }
    }

    private void tokens(int[] tokens) throws IOException {
      out.packArrayHeader(tokens.length);
      for (int t : tokens) {
        out.packInt(t);
      }
    }

    private void optional(Optional<String> s) throws IOException {
      if (s.isPresent()) {
        out.packString(s.get());
      } else {
        out.packNil();
      }
    }
  }
}
