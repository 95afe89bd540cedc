package io.github.kvroute.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import java.util.OptionalDouble;

/**
 * Everything the router holds about one replica id across its epochs: the latest report, the prefix
 * index slot, this router's books, calibration and breaker.
 *
 * <p>Thread-safety: three kinds of field, grouped below.
 *
 * <ul>
 *   <li><b>Fixed and self-guarding:</b> {@link #id} and {@link #slot} never change; the
 *       {@link #ledger}, {@link #calibration} and {@link #breaker} guard their own state.
 *   <li><b>Published:</b> volatile, written only while holding this entry's monitor (by
 *       {@link Fleet} and {@link CapacityMirror}), read without it by decisions. A decision may see one
 *       report's fields with another's; each field is read once per decision.
 *   <li><b>Writers' own:</b> plain fields read and written only under this entry's monitor.
 * </ul>
 */
final class ReplicaEntry {
  // fixed and self-guarding
  final String id;
  final int slot;
  final DispatchLedger ledger = new DispatchLedger();
  final Calibration calibration = new Calibration();
  final ReplicaBreaker breaker;

  // published: volatile, written under this entry's monitor, read lock-free
  volatile int indexGeneration;
  volatile long epoch = -1;
  volatile ReplicaSnapshot snapshot;
  volatile long observedAtNanos = Long.MIN_VALUE;
  volatile long readyObservedAtNanos = Long.MIN_VALUE;
  /**
   * Fed by KV events in the current epoch: what the router routes there is inserted only
   * speculatively, for as long as the attempt is open.
   */
  volatile boolean exact;
  /**
   * A gap in this epoch's KV-event sequence numbers: the index is back in approximate mode for it
   * until a CLEARED event or a new epoch.
   */
  volatile boolean degraded;
  volatile boolean removed;
  /** Other routers' arrival rate measured from the received-requests counter; NaN until measured. */
  volatile double unseenRatePerSecond;
  /** Mean TTFT of recent first tokens here, from the replica's TTFT histogram; empty until known. */
  volatile OptionalDouble recentTtftMillis = OptionalDouble.empty();
  /** Admissions per second while requests wait there ({@link #admission}'s), NaN until measured. */
  volatile double admissionPerSecond = Double.NaN;
  /** The capacity last sent to the index (reported or default, times the scale); -1 before. */
  volatile long mirroredCapacityBlocks = -1;

  // writers' own: under this entry's monitor only
  /** The KV capacity the replica last reported, in index blocks; -1 when it has not. */
  @GuardedBy("this")
  long capacityBlocks = -1;
  /**
   * How much of that capacity the index mirror assumes the replica really keeps for this router's
   * prompts, in (0, 1]: lowered when outcomes show the mirror believed in blocks the replica had
   * already evicted (other routers' traffic, engine-side eviction), recovered slowly when they agree.
   */
  @GuardedBy("this")
  double capacityScale = 1.0;
  /** When (router ticker) the router learnt the current {@link #epoch}: bounds how far it may jump. */
  @GuardedBy("this")
  long epochLearntAtNanos;
  /** The last KV-event sequence number applied in this epoch; -1 before one. */
  @GuardedBy("this")
  long lastKvSequence = -1;
  // foreign-rate estimation from the replica's received-requests counter
  @GuardedBy("this")
  long previousReceivedTotal = -1;
  @GuardedBy("this")
  long previousObservedAtNanos;
  @GuardedBy("this")
  long previousOwnTotal;
  @GuardedBy("this")
  final AdmissionRate admission = new AdmissionRate();
  // the TTFT histogram's totals at the previous report; -1 before one
  @GuardedBy("this")
  double previousTtftSumSeconds = -1;
  @GuardedBy("this")
  long previousTtftCount = -1;

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
