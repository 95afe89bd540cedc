package io.github.kvroute.sim;

import io.github.kvroute.api.KvEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The KV events one replica publishes, batched per engine step: consecutive stores (or removals)
 * become one event, and the order of stores, removals and clears is kept. Events are numbered per
 * epoch from 0, one number each ({@link KvEvent#sequence()}), so that routers see lost batches.
 *
 * <p>Not thread-safe.
 */
final class KvLog {
  private final String replicaId;
  private final List<KvEvent> done = new ArrayList<>();
  private KvEvent.Type runType;
  private long runEpoch;
  private long[] run = new long[64];
  private int runSize;
  private long sequenceEpoch = Long.MIN_VALUE;
  private long nextSequence;

  KvLog(String replicaId) {
    this.replicaId = replicaId;
  }

  void stored(long key, long epoch) {
    add(KvEvent.Type.STORED, key, epoch);
  }

  void removed(long key, long epoch) {
    add(KvEvent.Type.REMOVED, key, epoch);
  }

  void cleared(long epoch) {
    close(epoch);
    done.add(numbered(KvEvent.cleared(replicaId, epoch), epoch));
  }

  private void add(KvEvent.Type type, long key, long epoch) {
    if (runType != type || runEpoch != epoch) {
      close(runEpoch);
      runType = type;
      runEpoch = epoch;
    }
    if (runSize == run.length) {
      run = Arrays.copyOf(run, run.length * 2);
    }
    run[runSize++] = key;
  }

  private void close(long epoch) {
    if (runSize > 0) {
      long[] keys = Arrays.copyOf(run, runSize);
      done.add(numbered(runType == KvEvent.Type.STORED
          ? KvEvent.stored(replicaId, epoch, keys) : KvEvent.removed(replicaId, epoch, keys), epoch));
      runSize = 0;
    }
    runType = null;
  }

  private KvEvent numbered(KvEvent e, long epoch) {
    if (epoch != sequenceEpoch) {
      sequenceEpoch = epoch;
      nextSequence = 0;
    }
    return e.withSequence(nextSequence++);
  }

  /** The events since the last drain, in order; empty if none. */
  List<KvEvent> drain() {
    close(runEpoch);
    if (done.isEmpty()) {
      return List.of();
    }
    List<KvEvent> out = List.copyOf(done);
    done.clear();
    return out;
  }
}
