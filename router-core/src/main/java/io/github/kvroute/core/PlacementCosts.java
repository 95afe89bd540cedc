package io.github.kvroute.core;

/**
 * The arithmetic of what a placement costs other requests (cache pollution, and the queue it adds
 * for later arrivals), on plain values: the one implementation that both a policy's per-candidate
 * ranking and the router's batch ranking ({@link StandardRanking}) evaluate, so that the two give
 * the same bits. What each quantity means, and why it is priced so, is told where the
 * {@code hybrid-cost} policy uses them (its {@code Externalities}).
 *
 * <p>Thread-safety: stateless.
 */
public final class PlacementCosts {
  /** The cap of the steady-state requests in system: a single-server queue at utilisation 0.9. */
  public static final double MAX_REQUESTS_IN_SYSTEM = 9;

  private PlacementCosts() {}

  /**
   * Recompute time of the blocks a prompt of {@code blockCount} blocks of {@code blockSizeTokens}
   * tokens evicts from a replica holding {@code matchedBlocks} of them, {@code cachedBlocks} in all,
   * in a cache of {@code capacityBlocks}, at {@code msPerToken}.
   *
   * @param blockCount the prompt's blocks
   * @param blockSizeTokens tokens per block
   * @param matchedBlocks the prompt's leading blocks the replica holds
   * @param cachedBlocks the blocks the replica holds
   * @param capacityBlocks the blocks its cache holds at most
   * @param msPerToken its prefill cost per token
   * @return milliseconds
   */
  public static double pollutionMillis(int blockCount, int blockSizeTokens, int matchedBlocks,
      long cachedBlocks, long capacityBlocks, double msPerToken) {
    long newBlocks = Math.max(0, blockCount - matchedBlocks);
    long evicted = Math.min(newBlocks, Math.max(0, cachedBlocks + newBlocks - capacityBlocks));
    return evicted * (double) blockSizeTokens * msPerToken;
  }

  /**
   * One candidate's share of the fleet's utilisation: its arrivals per second times the mean
   * request cost in milliseconds, over 1,000.
   *
   * @param arrivalsPerSecond the candidate's arrival rate
   * @param meanRequestCostMillis the mean predicted prefill work of a request
   * @return the share (summed over the candidates, in their order, for
   *     {@link #fleetRequestsInSystem})
   */
  public static double utilisation(double arrivalsPerSecond, double meanRequestCostMillis) {
    return arrivalsPerSecond * meanRequestCostMillis / 1000.0;
  }

  /**
   * {@code ρ / (1 - ρ)} for the fleet's utilisation {@code ρ}: the {@link #utilisation} sum of
   * {@code candidates} candidates over their number, capped at 0.9; 0 without candidates.
   *
   * @param utilisationSum the candidates' {@link #utilisation}, added in their order
   * @param candidates how many
   * @return the requests in system of a replica that reports no TTFT histogram
   */
  public static double fleetRequestsInSystem(double utilisationSum, int candidates) {
    if (candidates == 0) {
      return 0;
    }
    double maxRho = MAX_REQUESTS_IN_SYSTEM / (1 + MAX_REQUESTS_IN_SYSTEM);
    double rho = Math.max(0, Math.min(maxRho, utilisationSum / candidates));
    return rho / (1 - rho);
  }

  /**
   * The steady-state requests in a replica's prefill system by Little's law, capped.
   *
   * @param arrivalsPerSecond its arrival rate
   * @param recentTtftMillis its recent mean TTFT
   * @return {@code min(cap, λ x W)}
   */
  public static double steadyRequestsInSystem(double arrivalsPerSecond, double recentTtftMillis) {
    return Math.min(MAX_REQUESTS_IN_SYSTEM, arrivalsPerSecond * recentTtftMillis / 1000.0);
  }

  /**
   * The requests queued at a replica as far as this router can tell.
   *
   * @param waitingRequests the report's waiting count (0 when it has none)
   * @param dispatchedSinceSnapshot this router's sends since the report, still in flight
   * @return their sum
   */
  public static double queuedRequests(int waitingRequests, int dispatchedSinceSnapshot) {
    return (double) waitingRequests + dispatchedSinceSnapshot;
  }
}
