package io.github.kvroute.api;

/**
 * The veto after a policy has chosen: admit the proposed decision, or replace it with a rejection that
 * carries a reason and a retry-after estimate. This is also where fleet-level backpressure and priority
 * shedding live. Admitting a request into certain deadline violation is not neutral: it takes prefill
 * and decode capacity from its neighbours, so rejecting early is cheaper than failing late.
 *
 * <p>Thread-safety: called concurrently; implementations must be thread-safe.
 */
@FunctionalInterface
public interface AdmissionController {

  /**
   * Returns {@code proposed} to admit it, or a {@link RoutingDecision#rejected rejection}. Only called
   * for routed proposals.
   *
   * @param context the decision's context: the request and every candidate
   * @param proposed the policy's routed decision
   * @return {@code proposed}, or a rejection
   */
  RoutingDecision admit(RoutingContext context, RoutingDecision proposed);

  /**
   * Admits everything the policy routes.
   *
   * @return a controller that returns every proposal unchanged
   */
  static AdmissionController admitAll() {
    return (context, proposed) -> proposed;
  }
}
