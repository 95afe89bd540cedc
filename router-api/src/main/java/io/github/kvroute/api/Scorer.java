package io.github.kvroute.api;

/**
 * One cost term: estimated milliseconds of time to first token that placing {@code request} on
 * {@code candidate} would incur for one reason (waiting, recomputing a missing prefix, loading an
 * adapter, trusting stale telemetry, ...). A policy sums weighted terms; lower is better.
 *
 * <p>Thread-safety: implementations must be stateless or thread-safe; they are called concurrently.
 */
public interface Scorer {

  /** {@return short, stable name used in cost breakdowns ({@code queue}, {@code prefill}, ...)} */
  String name();

  /**
   * The term's cost in milliseconds: finite and non-negative, or {@link Double#POSITIVE_INFINITY}
   * to veto the candidate (the router then never routes this request there). NaN or a negative
   * value is a plugin failure, as is an exception: the router counts and logs it, and the term
   * counts 0.
   *
   * @param request the request being routed
   * @param candidate the replica scored
   * @return milliseconds, or {@code +Infinity} to veto
   */
  double costMillis(Request request, CandidateView candidate);
}
