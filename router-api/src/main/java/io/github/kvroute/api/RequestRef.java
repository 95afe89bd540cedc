package io.github.kvroute.api;

/**
 * One attempt of one request: the identity of an in-flight lease.
 *
 * @param requestId the request's stable id
 * @param attempt the attempt number, from 1
 */
public record RequestRef(String requestId, int attempt) {
  /**
   * @param requestId the request's stable id
   * @param attempt the attempt number, from 1
   * @throws IllegalArgumentException if the id is blank or the attempt below 1
   */
  public RequestRef {
    Checks.notBlank(requestId, "requestId");
    Checks.atLeast(attempt, 1, "attempt");
  }

  @Override
  public String toString() {
    return requestId + "#" + attempt;
  }
}
