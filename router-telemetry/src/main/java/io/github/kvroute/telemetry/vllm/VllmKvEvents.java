package io.github.kvroute.telemetry.vllm;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessagePacker;
import org.msgpack.core.MessageUnpacker;

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
      VllmKvEventBatch batch = new KvEventDecoder(in, payload.length).batch();
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
      new KvEventEncoder(out, layout).batch(batch);
      return ((org.msgpack.core.MessageBufferPacker) out).toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
