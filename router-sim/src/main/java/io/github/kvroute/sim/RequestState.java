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
  /** The attempt whose first token came first (the authoritative one); -1 before any. */
  int firstTokenAttempt = -1;
  /** Whether a hedge attempt was started, and the first attempt's predicted TTFT. */
  boolean hedged;
  /** A hedged request's attempts on replicas or on their way (two at most), for cancelling the loser. */
  final java.util.List<Sequence> racing = new java.util.ArrayList<>(2);
  double firstPredictedMillis = Double.NaN;
  /**
   * The latest disaggregated attempt's prefill half: when it was enqueued, admitted and done, its
   * reuse.
   */
  long pairEnqueuedAtNanos;
  long pairAdmittedAtNanos;
  long pairPrefilledAtNanos;
  int pairCachedTokens;
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
