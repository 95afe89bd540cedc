package io.github.kvroute.policies;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.Ticker;
import java.time.Duration;
import java.util.List;

/**
 * Sticky sessions with a per-turn escape: each turn of a session goes back to the replica that served
 * the last one (where its conversation prefix is warm), unless staying costs more than leaving.
 *
 * <p>Why an escape, and why per turn: a session that can never leave its replica turns that
 * replica's queue into the user's latency, so the choice to stay is made again on every turn, not
 * once per session (docs/policies.md, "session-affinity"). The sticky TTL default, 2 hours, is vLLM
 * Router's ({@code vllm-project/router}, {@code VLLM_ROUTER_SLL_SESSION_EXPIRATION_IN_S});
 * llm-d's {@code prefix-cache-affinity-filter} breaks stickiness the same way, on a predicted-TTFT
 * penalty.
 *
 * <p>Rule, per request:
 * <ul>
 *   <li>no session id: the candidate with the least estimated cost ({@link RoutingContext#estimate},
 *       the router's TTFT model; first on ties);
 *   <li>a session whose sticky replica is gone or ineligible (not among the candidates), or a new
 *       session: the least-cost candidate, which becomes the sticky replica;
 *   <li>otherwise, with {@code s} the sticky replica and {@code a} the least-cost other candidate:
 *       escape to {@code a} (and re-stick there) iff
 *       {@code cost(s) - cost(a) > recompute(a)}, where
 *       {@code recompute(a) = max(0, matched(s) - matched(a)) x prefillMillisPerToken(a)}: the prefix
 *       the sticky replica holds and {@code a} would have to compute again. The alternative's own
 *       estimate already includes that recompute, so the escape needs {@code a} to win by a margin of
 *       it once more: a hysteresis that keeps near-ties sticky.
 * </ul>
 *
 * <p>State: session id to replica id in a Caffeine cache bounded by {@code max_sessions} (default
 * 1,000,000) and expiring {@code ttl_seconds} (default 7,200) after last access, on the router's
 * {@link Ticker}; maintenance runs on the calling thread ({@code Runnable::run}), so expiry follows
 * virtual time in simulations.
 *
 * <p>Thread-safety: the cache is thread-safe; two concurrent turns of one session may both re-stick,
 * and the last write wins (either choice is a valid sticky replica).
 */
final class SessionAffinityPolicy implements RoutingPolicy {
  static final String NAME = "session-affinity";
  static final long DEFAULT_TTL_SECONDS = 7_200;
  static final long DEFAULT_MAX_SESSIONS = 1_000_000;

  private final Cache<String, String> sticky;

  SessionAffinityPolicy(Duration ttl, long maxSessions, Ticker ticker) {
    this.sticky = Caffeine.newBuilder().ticker(ticker::read).executor(Runnable::run)
        .expireAfterAccess(ttl).maximumSize(maxSessions).build();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    List<CandidateView> candidates = context.candidates();
    if (candidates.isEmpty()) {
      return context.noCandidates();
    }
    String session = context.request().sessionId().orElse(null);
    String stickyId = session == null ? null : sticky.getIfPresent(session);
    int s = -1;
    for (int i = 0; stickyId != null && i < candidates.size(); i++) {
      if (candidates.get(i).replicaId().equals(stickyId)) {
        s = i;
      }
    }
    int best = -1;
    CostBreakdown bestCost = null;
    CostBreakdown stickyCost = null;
    for (int i = 0; i < candidates.size(); i++) {
      CostBreakdown cost = context.estimate(candidates.get(i));
      if (i == s) {
        stickyCost = cost;
      } else if (bestCost == null || cost.totalMillis() < bestCost.totalMillis()) {
        best = i;
        bestCost = cost;
      }
    }
    CandidateView chosen;
    CostBreakdown chosenCost;
    if (s >= 0 && (best < 0 || !escapes(candidates.get(s), stickyCost.totalMillis(),
        candidates.get(best), bestCost.totalMillis()))) {
      chosen = candidates.get(s);
      chosenCost = stickyCost;
    } else {
      chosen = candidates.get(best);
      chosenCost = bestCost;
    }
    if (session != null && !chosen.replicaId().equals(stickyId)) {
      sticky.put(session, chosen.replicaId());
    }
    return RoutingDecision.routed(chosen, chosenCost);
  }

  /** Whether a turn leaves sticky {@code s} (cost {@code cs}) for alternative {@code a} (cost {@code ca}). */
  static boolean escapes(CandidateView s, double cs, CandidateView a, double ca) {
    return cs - ca > recomputeMillis(s, a);
  }

  /** The prefix {@code s} holds that {@code a} would compute again, priced at {@code a}'s rate. */
  static double recomputeMillis(CandidateView s, CandidateView a) {
    return Math.max(0, s.matchedTokens() - a.matchedTokens()) * a.prefillMillisPerToken();
  }
}
