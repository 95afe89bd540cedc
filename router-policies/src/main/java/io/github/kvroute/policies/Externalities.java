package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import io.github.kvroute.core.CostTerms;
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
 * behind it: in a single-server queue at utilisation {@code ρ} a busy period holds about
 * {@code ρ / (1 - ρ)} further arrivals, so the marginal delay is {@code w x ρ / (1 - ρ)}. The fleet's
 * {@code ρ} is estimated from the candidates' arrival rates and mean request cost, capped at 0.9.
 * Off by default: with prefill-only work it underestimates busy replicas and can over-stick to hot
 * prefixes under load.
 */
final class Externalities {
  static final double MAX_UTILISATION = 0.9;

  private Externalities() {}

  /** Recompute time of the blocks placing {@code request} on {@code c} would evict. */
  static double pollutionMillis(Request request, CandidateView c) {
    PromptKey prompt = request.prompt();
    long newBlocks = Math.max(0, prompt.blockCount() - c.matchedBlocks());
    long evicted = Math.min(newBlocks,
        Math.max(0, c.cachedBlocks() + newBlocks - c.cacheCapacityBlocks()));
    return evicted * (double) prompt.blockSizeTokens() * c.prefillMillisPerToken();
  }

  /** {@code ρ / (1 - ρ)} for the fleet's estimated utilisation over {@code candidates}. */
  static double queueingFactor(List<CandidateView> candidates) {
    if (candidates.isEmpty()) {
      return 0;
    }
    double rho = 0;
    for (CandidateView c : candidates) {
      rho += c.arrivalsPerSecond() * c.meanRequestCostMillis() / 1000.0;
    }
    rho = Math.max(0, Math.min(MAX_UTILISATION, rho / candidates.size()));
    return rho / (1 - rho);
  }

  /** The delay {@code request}'s prefill on {@code c} imposes on later arrivals there. */
  static double queueingMillis(Request request, CandidateView c, double factor) {
    return factor * CostTerms.prefillMillis(request, c);
  }
}
