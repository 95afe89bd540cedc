package io.github.kvroute.api;

/** How an attempt ended. */
public enum OutcomeStatus {
  /** Generation finished. */
  SUCCESS,
  /** The replica returned a server-side error. */
  REPLICA_ERROR,
  /** No response within the host's timeout. */
  TIMEOUT,
  /** The connection to the replica failed. */
  CONNECTION_FAILED,
  /** The replica refused the request (full queue, 429/503) before starting it. */
  REJECTED_BY_REPLICA,
  /** The client went away or the host cancelled (not the replica's fault). */
  CANCELLED,
  /** The request itself was bad (a 4xx other than 429): not the replica's fault. */
  CLIENT_ERROR;

  /** {@return whether this is {@link #SUCCESS}} */
  public boolean isSuccess() {
    return this == SUCCESS;
  }

  /**
   * {@return whether the outcome is evidence against the replica's health (feeds its breaker)}
   * Cancellations and client errors are not: counting them opens breakers fleet-wide for one bad
   * client.
   */
  public boolean countsAgainstReplica() {
    return this == REPLICA_ERROR || this == TIMEOUT || this == CONNECTION_FAILED;
  }
}
