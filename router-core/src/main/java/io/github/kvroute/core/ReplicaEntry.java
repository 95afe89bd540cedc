package io.github.kvroute.core;

import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;

/**
 * Everything the router holds about one replica id across its epochs: the latest report, the prefix
 * index slot, this router's books, calibration and breaker.
 *
 * <p>Thread-safety: report fields are volatile and written while holding the entry's monitor (by
 * {@link Fleet}); the ledger, calibration and breaker guard themselves.
 */
final class ReplicaEntry {
  final String id;
  final int slot;
  final DispatchLedger ledger = new DispatchLedger();
  final Calibration calibration = new Calibration();
  final ReplicaBreaker breaker;

  volatile int indexGeneration;
  volatile long epoch = -1;
  volatile ReplicaSnapshot snapshot;
  volatile long observedAtNanos = Long.MIN_VALUE;
  volatile long readyObservedAtNanos = Long.MIN_VALUE;
  /** Fed by KV events in the current epoch: the router stops inserting guesses. */
  volatile boolean exact;
  volatile boolean removed;
  volatile double unseenRatePerSecond;
  /** The KV capacity the replica last reported, in index blocks; -1 when it has not. */
  volatile long capacityBlocks = -1;
  /**
   * How much of that capacity the index mirror assumes the replica really keeps for this router's
   * prompts, in (0, 1]: lowered when outcomes show the mirror believed in blocks the replica had
   * already evicted (other routers' traffic, engine-side eviction), recovered slowly when they agree.
   */
  double capacityScale = 1.0;
  /** The capacity last sent to the index (reported or default, times the scale). */
  long mirroredCapacityBlocks = -1;

  // foreign-rate estimation from the replica's received-requests counter (under the entry monitor)
  long previousReceivedTotal = -1;
  long previousObservedAtNanos;
  long previousOwnTotal;

  ReplicaEntry(String id, int slot, int indexGeneration, ReplicaBreaker.Transitions transitions,
      BreakerConfig breakerConfig) {
    this.id = id;
    this.slot = slot;
    this.indexGeneration = indexGeneration;
    this.breaker = new ReplicaBreaker(breakerConfig, transitions);
  }

  ReplicaState state() {
    ReplicaSnapshot s = snapshot;
    return s == null ? null : s.state();
  }

  @Override
  public String toString() {
    return id + "#" + epoch;
  }
}
