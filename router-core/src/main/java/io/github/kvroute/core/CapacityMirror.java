package io.github.kvroute.core;

import io.github.kvroute.api.ReplicaSnapshot;

/**
 * How many blocks the prefix index believes each replica's cache holds: the replica's reported KV
 * capacity (or the router's default), scaled down when outcomes show the mirror believed in blocks the
 * replica had already evicted. The index evicts a slot's least recent entries down to it.
 *
 * <p>Fed by reports (through {@link Fleet}) and by outcomes (through {@link Feedback}).
 *
 * <p>Thread-safety: thread-safe; every change to an entry's capacity fields happens under the entry's
 * monitor.
 */
final class CapacityMirror {
  private final PrefixIndex index;
  private final int blockSizeTokens;
  private final long defaultCapacityBlocks;

  CapacityMirror(PrefixIndex index, RouterSettings settings) {
    this.index = index;
    this.blockSizeTokens = settings.blockSizeTokens();
    this.defaultCapacityBlocks = settings.defaultCapacityBlocks();
  }

  /** A report arrived; the caller holds {@code entry}'s monitor. */
  void onReport(ReplicaEntry entry, ReplicaSnapshot s) {
    if (s.kvCapacityTokens().isPresent()) {
      entry.capacityBlocks = Math.max(1, s.kvCapacityTokens().getAsLong() / blockSizeTokens);
    }
    mirror(entry);
  }

  /**
   * Outcome feedback on the approximate mirror: {@code overestimated} when the engine reused fewer
   * tokens than the index promised. Each overestimate shrinks the mirrored capacity by 10% (down to a
   * tenth of the reported one), each confirmation grows it back by 1%; the index then evicts its least
   * recent entries down to the new capacity.
   */
  void correct(ReplicaEntry entry, boolean overestimated) {
    synchronized (entry) {
      if (entry.exact || entry.removed) {
        return;
      }
      double scale = entry.capacityScale;
      entry.capacityScale = overestimated ? Math.max(0.1, scale * 0.9) : Math.min(1.0, scale * 1.01);
      mirror(entry);
    }
  }

  /** Called under the entry's monitor. */
  private void mirror(ReplicaEntry entry) {
    if (entry.indexGeneration < 0) {
      return;
    }
    long reported = entry.capacityBlocks > 0 ? entry.capacityBlocks : defaultCapacityBlocks;
    long blocks = Math.max(1, (long) (reported * entry.capacityScale));
    if (blocks != entry.mirroredCapacityBlocks) {
      entry.mirroredCapacityBlocks = blocks;
      index.setCapacity(entry.slot, entry.indexGeneration, blocks);
    }
  }
}
