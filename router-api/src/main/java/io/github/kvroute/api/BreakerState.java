package io.github.kvroute.api;

/** A replica's circuit-breaker state, as reported to {@link RouterListener}s. */
public enum BreakerState {
  /** Traffic flows. */
  CLOSED,
  /** The replica failed too often: no traffic until the wait elapses. */
  OPEN,
  /** A bounded number of probe requests test recovery, gated on readiness. */
  HALF_OPEN
}
