package io.github.kvroute.telemetry.vllm;

import io.github.kvroute.api.UpdateResult;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the subscriber knows about one replica's KV-event stream. A malformed message, a lost batch or a
 * throwing sink is counted here, never thrown.
 *
 * <p>Immutable and thread-safe.
 *
 * @param replicaId the replica
 * @param batches messages decoded into batches (live and replayed)
 * @param events events decoded
 * @param delivered {@link io.github.kvroute.api.KvEvent}s handed to the sink
 * @param results what the sink answered, by result
 * @param ignoredEvents events of another storage tier than the GPU, or another KV-cache group
 * @param skippedEvents events of a type this version does not know
 * @param malformedMessages messages with the wrong frames or an undecodable payload
 * @param gaps sequence gaps not filled by replay: each makes the next event skip a number, so the
 *     router sees the gap and degrades the replica's index
 * @param missedBatches batches lost in those gaps
 * @param replayedBatches batches recovered from the replay socket
 * @param duplicateBatches batches at or below the last sequence seen, dropped
 * @param publisherRestarts times the live sequence went back (the engine restarted)
 * @param droppedWithoutEpoch events dropped because the replica's epoch was not known yet
 * @param sinkFailures deliveries that threw (contained)
 * @param lastSequence the last batch sequence number seen
 * @param lastError the last malformed message's or failed replay's description
 */
public record KvStreamStatus(
    String replicaId,
    long batches,
    long events,
    long delivered,
    Map<UpdateResult, Long> results,
    long ignoredEvents,
    long skippedEvents,
    long malformedMessages,
    long gaps,
    long missedBatches,
    long replayedBatches,
    long duplicateBatches,
    long publisherRestarts,
    long droppedWithoutEpoch,
    long sinkFailures,
    OptionalLong lastSequence,
    Optional<String> lastError) {

  /**
   * Copies {@code results} into an unmodifiable map.
   *
   * @param replicaId the replica
   * @param batches messages decoded into batches (live and replayed)
   * @param events events decoded
   * @param delivered {@link io.github.kvroute.api.KvEvent}s handed to the sink
   * @param results what the sink answered, by result
   * @param ignoredEvents events of another storage tier than the GPU, or another KV-cache group
   * @param skippedEvents events of a type this version does not know
   * @param malformedMessages messages with the wrong frames or an undecodable payload
   * @param gaps sequence gaps not filled by replay: each makes the next event skip a number, so the
   *     router sees the gap and degrades the replica's index
   * @param missedBatches batches lost in those gaps
   * @param replayedBatches batches recovered from the replay socket
   * @param duplicateBatches batches at or below the last sequence seen, dropped
   * @param publisherRestarts times the live sequence went back (the engine restarted)
   * @param droppedWithoutEpoch events dropped because the replica's epoch was not known yet
   * @param sinkFailures deliveries that threw (contained)
   * @param lastSequence the last batch sequence number seen
   * @param lastError the last malformed message's or failed replay's description
   */
  public KvStreamStatus {
    results = Map.copyOf(results);
  }

  /** {@return how many delivered events the sink applied} */
  public long applied() {
    return results.getOrDefault(UpdateResult.APPLIED, 0L);
  }
}
