package io.github.kvroute.telemetry.vllm;

import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Reads one batch of {@link VllmKvEvents#decode}; every length is checked against the payload size
 * first.
 *
 * <p>Not thread-safe: one per payload.
 */
final class KvEventDecoder {
  private final MessageUnpacker in;
  private final int size;

  KvEventDecoder(MessageUnpacker in, int size) {
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
