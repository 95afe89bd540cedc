package io.github.kvroute.telemetry.vllm;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.TelemetrySink;
import io.github.kvroute.api.UpdateResult;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One stream's batches in, kvroute {@link KvEvent}s out, numbered for the router's gap detection.
 *
 * <h2>Design notes</h2>
 * vLLM numbers batches (0, 1, 2, ... per publisher process); the router wants each event numbered,
 * consecutively per replica and epoch, a skipped number meaning lost events
 * ({@link KvEvent#withSequence}). So events are numbered here, from 0 in each epoch, and a lost batch
 * (a jump in batch numbers that replay did not fill, or a batch whose payload could not be decoded)
 * makes the next event skip one number: the router then sees the gap and degrades the replica's index
 * until a resync. A batch number at or below the last one is a duplicate when it comes from replay;
 * on the live stream it means the publisher restarted (a new engine process numbers from 0 again), so
 * numbering goes on without a gap (the router resets the replica on the new epoch anyway).
 *
 * <p>Events stored or removed on another tier than the GPU (vLLM's {@code medium}, e.g. CPU offload),
 * or in another KV-cache group than the configured one (hybrid models), are ignored: the router's index
 * mirrors the GPU prefix cache, whose blocks are the same in every group.
 *
 * <p>Thread-safety: {@link #onMessage} and {@link #onMalformed} are called by the subscriber's thread
 * only (guarded by {@code this} anyway); {@link #status} may be read from any thread.
 */
final class StreamSequencer {
  private final KvEventStream stream;
  private final EpochSource epochs;
  private final int group;

  @GuardedBy("this")
  private long lastBatch = -1;
  @GuardedBy("this")
  private long numberingEpoch = Long.MIN_VALUE;
  @GuardedBy("this")
  private long nextEvent;
  @GuardedBy("this")
  private boolean skipNext;
  @GuardedBy("this")
  private long batches;
  @GuardedBy("this")
  private long events;
  @GuardedBy("this")
  private long delivered;
  @GuardedBy("this")
  private final Map<UpdateResult, Long> results = new EnumMap<>(UpdateResult.class);
  @GuardedBy("this")
  private long ignored;
  @GuardedBy("this")
  private long skipped;
  @GuardedBy("this")
  private long malformed;
  @GuardedBy("this")
  private long gaps;
  @GuardedBy("this")
  private long missed;
  @GuardedBy("this")
  private long replayed;
  @GuardedBy("this")
  private long duplicates;
  @GuardedBy("this")
  private long restarts;
  @GuardedBy("this")
  private long withoutEpoch;
  @GuardedBy("this")
  private long sinkFailures;
  @GuardedBy("this")
  private String lastError;

  StreamSequencer(KvEventStream stream, EpochSource epochs, int group) {
    this.stream = stream;
    this.epochs = epochs;
    this.group = group;
  }

  KvEventStream stream() {
    return stream;
  }

  /**
   * The batch numbers missing before live batch {@code seq}: {@code [from, seq)}, or empty. Before the
   * first batch, every earlier one is missing: what the engine published before this subscriber had
   * joined (ZeroMQ delivers nothing sent before a SUB socket connects).
   */
  synchronized OptionalLong missingFrom(long seq) {
    if (lastBatch < 0) {
      return seq > 0 ? OptionalLong.of(0) : OptionalLong.empty();
    }
    return seq > lastBatch + 1 ? OptionalLong.of(lastBatch + 1) : OptionalLong.empty();
  }

  /** A message that is not a batch (wrong frames): counted; a later jump in numbers shows the loss. */
  synchronized void onMalformed(String error) {
    malformed++;
    lastError = error;
  }

  /**
   * A replay that failed or ended early, or the subscription's end: said in the status; a gap stays
   * and the next live batch shows it.
   */
  synchronized void onReplayFailed(String error) {
    lastError = error;
  }

  /** Batch {@code seq} with {@code payload}, live or {@code replay}ed; delivers its events to {@code sink}. */
  synchronized void onMessage(long seq, byte[] payload, boolean replay, TelemetrySink sink) {
    if (lastBatch >= 0 && seq <= lastBatch) {
      if (replay || seq == lastBatch) {
        duplicates++;
        return;
      }
      restarts++;
    } else if (lastBatch >= 0 && seq > lastBatch + 1) {
      gaps++;
      missed += seq - lastBatch - 1;
      skipNext = true;
    }
    lastBatch = seq;
    if (replay) {
      replayed++;
    }
    VllmKvEventBatch batch;
    try {
      batch = VllmKvEvents.decode(payload);
    } catch (IllegalArgumentException e) {
      malformed++;
      lastError = "batch " + seq + ": " + e.getMessage();
      skipNext = true; // its events are lost
      return;
    }
    batches++;
    skipped += batch.skippedEvents();
    for (VllmKvEvent e : batch.events()) {
      events++;
      if (!relevant(e)) {
        ignored++;
        continue;
      }
      OptionalLong epoch = epochs.epoch(stream.replicaId());
      if (epoch.isEmpty()) {
        withoutEpoch++;
        continue;
      }
      if (epoch.getAsLong() != numberingEpoch) {
        numberingEpoch = epoch.getAsLong();
        nextEvent = 0;
        skipNext = false;
      }
      long number = nextEvent + (skipNext ? 1 : 0);
      skipNext = false;
      nextEvent = number + 1;
      deliver(translate(e, numberingEpoch).withSequence(number), sink);
    }
  }

  private boolean relevant(VllmKvEvent e) {
    return e.medium().map(VllmKvEvents.MEDIUM_GPU::equals).orElse(true)
        && (e.groupIdx().isEmpty() || e.groupIdx().getAsInt() == group);
  }

  private KvEvent translate(VllmKvEvent e, long epoch) {
    String id = stream.replicaId();
    return switch (e.kind()) {
      case BLOCK_STORED -> KvEvent.storedEngineHashes(id, epoch, stream.namespace(), e.blockHashes());
      case BLOCK_REMOVED -> KvEvent.removedEngineHashes(id, epoch, stream.namespace(), e.blockHashes());
      case ALL_BLOCKS_CLEARED -> KvEvent.cleared(id, epoch);
    };
  }

  @GuardedBy("this")
  private void deliver(KvEvent event, TelemetrySink sink) {
    delivered++;
    try {
      UpdateResult r = sink.onKvEvent(event);
      results.merge(r, 1L, Long::sum);
    } catch (RuntimeException e) {
      sinkFailures++;
      lastError = "sink: " + e;
    }
  }

  synchronized KvStreamStatus status() {
    return new KvStreamStatus(stream.replicaId(), batches, events, delivered, results, ignored, skipped,
        malformed, gaps, missed, replayed, duplicates, restarts, withoutEpoch, sinkFailures,
        lastBatch < 0 ? OptionalLong.empty() : OptionalLong.of(lastBatch),
        Optional.ofNullable(lastError));
  }
}
