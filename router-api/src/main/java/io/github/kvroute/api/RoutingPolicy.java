package io.github.kvroute.api;

/**
 * Chooses where a request goes among the candidates the router prepared, or declines.
 *
 * <p>A policy returns a value for every input: a routed decision naming one of
 * {@link RoutingContext#candidates()} (or a prefill/decode pair from the role lists), or a rejection.
 * An empty candidate list yields {@link RoutingContext#noCandidates()}, not an exception. The router
 * contains a policy that throws (it logs once and falls back), but a policy should not rely on that.
 *
 * <p>Thread-safety: {@link #route} is called concurrently from request threads while telemetry
 * arrives; implementations must be thread-safe. Randomness must come from
 * {@link RoutingContext#random()} so that decisions reproduce from a seed.
 */
public interface RoutingPolicy {

  /** {@return the registered policy name ({@code hybrid-cost}, {@code round-robin}, ...)} */
  String name();

  /**
   * Decides for {@code context.request()}.
   *
   * @param context the request, its candidates and the router's estimates
   * @return a routed decision naming one of the context's candidates, or a rejection
   */
  RoutingDecision route(RoutingContext context);

  /**
   * Told what happened to a request this policy placed; default: ignored.
   *
   * @param outcome the outcome, as the host reported it
   */
  default void onOutcome(Outcome outcome) {}
}
