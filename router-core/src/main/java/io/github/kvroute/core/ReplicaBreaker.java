package io.github.kvroute.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.BreakerState;

/**
 * One replica's circuit breaker (see {@link BreakerConfig} for the state machine).
 *
 * <p>The window is a ring of the last {@code windowSize} outcomes packed in a long. Half-open admits at
 * most {@code halfOpenProbes} attempts in flight, and only once the replica has reported READY after the
 * breaker opened: the readiness signal that gates joining also gates recovery.
 *
 * <p>Thread-safety: synchronized; {@link #state()} is a volatile read for the routing fast path.
 */
final class ReplicaBreaker {
  /**
   * Receives transitions, called after the breaker's lock is released (so it may call back); under
   * concurrent calls two transitions may be reported in either order, each one once.
   */
  interface Transitions {
    void changed(BreakerState previous, BreakerState current);
  }

  private final BreakerConfig config;
  private final Transitions transitions;
  private volatile BreakerState state = BreakerState.CLOSED;
  @GuardedBy("this")
  private long window;
  @GuardedBy("this")
  private int windowCount;
  @GuardedBy("this")
  private int windowHead;
  @GuardedBy("this")
  private int consecutive;
  @GuardedBy("this")
  private long openedAtNanos;
  @GuardedBy("this")
  private int probesInFlight;
  @GuardedBy("this")
  private int probeSuccesses;
  /** The state before the transitions of the current locked call, or null (guarded by this). */
  private BreakerState changedFrom;

  ReplicaBreaker(BreakerConfig config, Transitions transitions) {
    this.config = config;
    this.transitions = transitions;
  }

  BreakerState state() {
    return state;
  }

  /** What {@link #acquire} grants. */
  enum Permit {
    /** No traffic now. */
    DENIED,
    /** Closed: traffic flows freely. */
    FREE,
    /** Half-open: a probe place is reserved; dispatch on it or give it back ({@link #releaseProbe}). */
    PROBE
  }

  /**
   * Whether a new attempt may go to the replica now, reserving a probe place when half-open (so that
   * concurrent decisions cannot exceed the probe limit). {@code readyObservedAtNanos} is when the
   * replica last reported READY (or {@code Long.MIN_VALUE}).
   */
  Permit acquire(long nowNanos, long readyObservedAtNanos) {
    if (state == BreakerState.CLOSED) {
      return Permit.FREE;
    }
    Permit permit;
    BreakerState[] change;
    synchronized (this) {
      permit = acquireLocked(nowNanos, readyObservedAtNanos);
      change = takeChange();
    }
    publish(change);
    return permit;
  }

  /**
   * What {@link #acquire} would grant now, reserving nothing and changing no state: for explaining a
   * decision without taking part in it.
   */
  synchronized Permit peek(long nowNanos, long readyObservedAtNanos) {
    return switch (state) {
      case CLOSED -> Permit.FREE;
      case OPEN -> mayProbe(nowNanos, readyObservedAtNanos) && config.halfOpenProbes() > 0
          ? Permit.PROBE : Permit.DENIED;
      case HALF_OPEN -> probesInFlight < config.halfOpenProbes() ? Permit.PROBE : Permit.DENIED;
    };
  }

  /** An open breaker has waited its time and the replica has reported READY since it opened. */
  @GuardedBy("this")
  private boolean mayProbe(long nowNanos, long readyObservedAtNanos) {
    boolean waited = nowNanos - openedAtNanos >= Durations.saturatedNanos(config.openDuration());
    boolean freshReady = readyObservedAtNanos > openedAtNanos;
    return waited && freshReady;
  }

  private Permit acquireLocked(long nowNanos, long readyObservedAtNanos) {
    if (state == BreakerState.OPEN) {
      if (!mayProbe(nowNanos, readyObservedAtNanos)) {
        return Permit.DENIED;
      }
      moveTo(BreakerState.HALF_OPEN);
      probesInFlight = 0;
      probeSuccesses = 0;
    }
    if (state == BreakerState.CLOSED) {
      return Permit.FREE;
    }
    if (probesInFlight < config.halfOpenProbes()) {
      probesInFlight++;
      return Permit.PROBE;
    }
    return Permit.DENIED;
  }

  /** An outcome that is evidence for ({@code failure == false}) or against the replica. */
  void onOutcome(boolean failure, boolean probe, long nowNanos) {
    BreakerState[] change;
    synchronized (this) {
      onOutcomeLocked(failure, probe, nowNanos);
      change = takeChange();
    }
    publish(change);
  }

  private void onOutcomeLocked(boolean failure, boolean probe, long nowNanos) {
    if (probe && probesInFlight > 0) {
      probesInFlight--;
    }
    if (state == BreakerState.HALF_OPEN) {
      if (failure) {
        open(nowNanos);
      } else if (probe && ++probeSuccesses >= config.halfOpenProbes()) {
        clearWindow();
        moveTo(BreakerState.CLOSED);
      }
      return;
    }
    if (state == BreakerState.OPEN) {
      return;
    }
    record(failure);
    consecutive = failure ? consecutive + 1 : 0;
    if (consecutive >= config.consecutiveFailures()
        || (windowCount >= config.minimumCalls()
            && failures() >= config.failureRateThreshold() * windowCount)) {
      open(nowNanos);
    }
  }

  /**
   * Gives back a probe place: reserved but not used, or used by an attempt that ended without evidence
   * either way (cancelled, orphaned, expired).
   */
  synchronized void releaseProbe() {
    if (probesInFlight > 0) {
      probesInFlight--;
    }
  }

  /** The replica was replaced by a new process: start closed. */
  void reset() {
    BreakerState[] change;
    synchronized (this) {
      clearWindow();
      probesInFlight = 0;
      probeSuccesses = 0;
      if (state != BreakerState.CLOSED) {
        moveTo(BreakerState.CLOSED);
      }
      change = takeChange();
    }
    publish(change);
  }

  private void open(long nowNanos) {
    openedAtNanos = nowNanos;
    clearWindow();
    moveTo(BreakerState.OPEN);
  }

  private void record(boolean failure) {
    int size = config.windowSize();
    long bit = 1L << windowHead;
    window = failure ? window | bit : window & ~bit;
    windowHead = (windowHead + 1) % size;
    windowCount = Math.min(windowCount + 1, size);
  }

  private int failures() {
    return Long.bitCount(window);
  }

  private void clearWindow() {
    window = 0;
    windowCount = 0;
    windowHead = 0;
    consecutive = 0;
  }

  /** Called under the lock; the listener hears of it after the lock is released. */
  private void moveTo(BreakerState next) {
    if (state != next) {
      if (changedFrom == null) {
        changedFrom = state;
      }
      state = next;
    }
  }

  /** Called under the lock: the net transition of this call, or null. */
  private BreakerState[] takeChange() {
    BreakerState from = changedFrom;
    changedFrom = null;
    return from == null || from == state ? null : new BreakerState[] {from, state};
  }

  private void publish(BreakerState[] change) {
    if (change != null) {
      transitions.changed(change[0], change[1]);
    }
  }
}
