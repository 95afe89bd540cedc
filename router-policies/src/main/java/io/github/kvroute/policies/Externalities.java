package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import io.github.kvroute.core.CostTerms;
import io.github.kvroute.core.PlacementCosts;
import java.util.List;

/**
 * What a placement costs <em>other</em> requests, in milliseconds: the part of the total latency a
 * request's own predicted TTFT leaves out. {@code hybrid-cost} ranks by TTFT plus these, while its
 * decisions still carry the TTFT alone (that is what admission compares with the deadline).
 *
 * <h2>Design notes</h2>
 * <b>Cache pollution.</b> Recomputing a prefix on a replica whose cache is full evicts its least
 * recently used blocks, typically another prefix kept because it is in use: the next request for it
 * there recomputes it. The placement's new blocks are the prompt's blocks beyond the match; those that
 * do not fit in the mirrored capacity evict as many blocks, each priced at the replica's prefill cost
 * per token. On the multi-tenant scenario this is the difference between scattering tenants over
 * cold replicas whenever a queue forms (TTFT p99 365 ms) and keeping them warm (76 ms).
 *
 * <p><b>Queueing.</b> Prefill work {@code w} placed on a replica also delays the requests that arrive
 * behind it: in a single-server queue a busy period holds about {@code L = ρ / (1 - ρ)} further
 * requests, so the marginal delay is {@code w x L}. {@code L} is the number of requests in the
 * replica's prefill system, which Little's law gives from what a gateway measures: the replica's
 * arrival rate from every router times its recent mean TTFT ({@link CandidateView#recentTtftMillis()},
 * from the engine's TTFT histogram). It is per replica, so a copy of a hot prefix on an idle replica is
 * cheap and a recompute on a busy one is dear. Without a TTFT histogram, the fleet's {@code ρ} is
 * estimated from the candidates' arrival rates and mean request cost instead. That steady-state
 * {@code L} is capped at {@value #MAX_REQUESTS_IN_SYSTEM} (utilisation 0.9).
 *
 * <p><b>A backlog counts as it is.</b> Where requests are queued, {@code L} is at least their count:
 * the report's waiting requests ({@code vllm:num_requests_waiting}) plus this router's sends since
 * the report that are still in flight, uncapped. A queue that persists holds about as many requests
 * behind new work as it holds now, and a stock engine's waiting count is the one signal that shows
 * a queue its KV holds up: there each waiting request waits for a running one to finish, however
 * little prefill it needs, so the queue estimate (prefill work) sees milliseconds where requests wait
 * seconds. Priced by the count, a recompute on a backlogged replica costs what it costs the requests
 * it delays, so a prefix stays with its holders while they keep up and is copied to a replica with no
 * backlog when they do not. On {@code multi-tenant} at twice its rate a replica held 25-50 waiting
 * requests for 30 s with 0-100 ms estimated while another sat at 40% KV use; with the count it is
 * relieved (SLO attainment 0.78 to 0.95, seed 1). Measured in docs/cost-model.md ("Externalities").
 */
final class Externalities {
  /** The cap of {@code L}: a single-server queue at utilisation 0.9. */
  static final double MAX_REQUESTS_IN_SYSTEM = PlacementCosts.MAX_REQUESTS_IN_SYSTEM;

  private Externalities() {}

  /** Recompute time of the blocks placing {@code request} on {@code c} would evict. */
  static double pollutionMillis(Request request, CandidateView c) {
    return pollutionMillis(request, c, c.matchedBlocks());
  }

  /** {@link #pollutionMillis(Request, CandidateView)} were {@code matchedBlocks} held on {@code c}. */
  static double pollutionMillis(Request request, CandidateView c, int matchedBlocks) {
    PromptKey prompt = request.prompt();
    return PlacementCosts.pollutionMillis(prompt.blockCount(), prompt.blockSizeTokens(),
        matchedBlocks, c.cachedBlocks(), c.cacheCapacityBlocks(), c.prefillMillisPerToken());
  }

  /**
   * {@code ρ / (1 - ρ)} for the fleet's utilisation estimated from {@code candidates}' arrival rates
   * and mean request cost: the requests in system of a replica that reports no TTFT histogram.
   */
  static double fleetRequestsInSystem(List<CandidateView> candidates) {
    double rho = 0;
    // indexed (the lists are random access): a for-each's iterator was not always scalar-replaced
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      rho += PlacementCosts.utilisation(c.arrivalsPerSecond(), c.meanRequestCostMillis());
    }
    return PlacementCosts.fleetRequestsInSystem(rho, candidates.size());
  }

  /**
   * The requests new work on {@code c} delays: those in its prefill system by Little's law
   * ({@code λ x W}, capped; {@code fallback} when the replica reports no TTFT histogram), or the
   * requests queued there now ({@link #queuedRequests}) when they are more.
   */
  static double requestsInSystem(CandidateView c, double fallback) {
    double steady = c.recentTtftMillis().isEmpty() ? fallback : PlacementCosts
        .steadyRequestsInSystem(c.arrivalsPerSecond(), c.recentTtftMillis().getAsDouble());
    return Math.max(steady, queuedRequests(c));
  }

  /**
   * The requests queued at {@code c} as far as this router can tell: the report's waiting count
   * (0 when it has none) plus this router's sends since the report that are still in flight.
   */
  static double queuedRequests(CandidateView c) {
    return PlacementCosts.queuedRequests(c.snapshot().waitingRequests().orElse(0),
        c.dispatchedSinceSnapshot());
  }

  /**
   * The delay {@code request}'s prefill on {@code c} imposes on later arrivals there; {@code fleet} is
   * {@link #fleetRequestsInSystem} of the decision's candidates.
   */
  static double queueingMillis(Request request, CandidateView c, double fleet) {
    return requestsInSystem(c, fleet) * CostTerms.prefillMillis(request, c);
  }
}
