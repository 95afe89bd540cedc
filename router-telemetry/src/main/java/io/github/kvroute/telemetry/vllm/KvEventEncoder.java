package io.github.kvroute.telemetry.vllm;

import io.github.kvroute.telemetry.vllm.VllmKvEvents.Layout;
import java.io.IOException;
import java.math.BigInteger;
import java.util.List;
import java.util.Optional;
import org.msgpack.core.MessagePacker;

/**
 * Writes structs as vLLM's msgspec encoder does in one layout, for {@link VllmKvEvents#encode}.
 *
 * <p>Not thread-safe: one per batch.
 */
final class KvEventEncoder {
  private final MessagePacker out;
  private final Layout layout;

  KvEventEncoder(MessagePacker out, Layout layout) {
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
