package io.github.kvroute.sim;

/**
 * A request's life in the simulation across its attempts: which router owns it, whether it was ever
 * routed, whether its first prefill was measured, and how it ended (exactly once).
 *
 * <p>Not thread-safe.
 */
final class RequestState {
  /** How a request ended. */
  enum End { COMPLETED, REJECTED, FAILED }

  final SimRequest request;
  final int router;
  /** The router's view of the latest attempt. */
  io.github.kvroute.api.Request current;
  int attempts;
  boolean admitted;
  boolean firstPrefillMeasured;
  /** The router's cost breakdown for the last routed attempt. */
  io.github.kvroute.api.CostBreakdown predicted = io.github.kvroute.api.CostBreakdown.empty();
  End end;

  RequestState(SimRequest request, int router) {
    this.request = request;
    this.router = router;
  }
}
