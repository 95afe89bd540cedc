package io.github.kvroute.telemetry.vllm;

import java.util.List;
import java.util.OptionalInt;

/**
 * One vLLM {@code KVEventBatch}: {@code (ts, events, data_parallel_rank)}, the payload of one message on
 * the KV-event stream.
 *
 * <p>Immutable and thread-safe.
 *
 * @param timestamp the engine's wall-clock time of the batch, in seconds since the Unix epoch (vLLM's
 *     {@code time.time()}); informative only: kvroute orders events by sequence number
 * @param events the events, in the engine's order
 * @param dataParallelRank the publishing engine's data-parallel rank, when the batch says
 * @param skippedEvents events of a type this decoder does not know (a newer vLLM's), skipped
 */
public record VllmKvEventBatch(double timestamp, List<VllmKvEvent> events, OptionalInt dataParallelRank,
    int skippedEvents) {
  /**
   * Copies {@code events} into an unmodifiable list and requires {@code skippedEvents >= 0}.
   *
   * @param timestamp the engine's wall-clock time of the batch, in seconds since the Unix epoch
   *     (vLLM's {@code time.time()}); informative only: kvroute orders events by sequence number
   * @param events the events, in the engine's order
   * @param dataParallelRank the publishing engine's data-parallel rank, when the batch says
   * @param skippedEvents events of a type this decoder does not know (a newer vLLM's), skipped
   */
  public VllmKvEventBatch {
    events = List.copyOf(events);
    if (skippedEvents < 0) {
      throw new IllegalArgumentException("skippedEvents: " + skippedEvents + " (expected: >= 0)");
    }
  }

  /**
   * {@return a batch of {@code events} at {@code timestamp}, rank unset, nothing skipped}
   *
   * @param timestamp seconds since the Unix epoch
   * @param events the events, in the engine's order
   */
  public static VllmKvEventBatch of(double timestamp, List<VllmKvEvent> events) {
    return new VllmKvEventBatch(timestamp, events, OptionalInt.empty(), 0);
  }
}
