package io.github.kvroute.api;

/** Why a request was not routed. Every rejection carries one, so the numbers add up. */
public enum RejectReason {
  /**
   * No replica is eligible: the fleet is empty, none is READY in its current epoch, none serves the
   * model, version, adapter or role, or every breaker is open.
   */
  NO_CANDIDATES,
  /** Every candidate's predicted time to first token exceeds what is left of the request's budget. */
  DEADLINE,
  /** Fleet backpressure: queued work exceeds what the fleet can absorb for this priority. */
  OVERLOADED,
  /** The policy declined to place the request (for example, all telemetry too stale to trust). */
  POLICY
}
