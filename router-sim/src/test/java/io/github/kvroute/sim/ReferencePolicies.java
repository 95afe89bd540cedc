package io.github.kvroute.sim;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Stand-ins for baselines that live in router-policies on other branches, so that the scenarios can be
 * checked for the effects they are named for before those land: least outstanding tokens (load only)
 * and longest prefix match (cache only, load-blind). Test use only; not the real implementations.
 */
final class ReferencePolicies {
  private ReferencePolicies() {}

  /** Least outstanding tokens (prompt plus remaining output over in-flight work); random ties. */
  static RoutingPolicy leastOutstandingTokens() {
    return argmin("ref-least-outstanding-tokens", c -> c.estimatedOutstandingTokens());
  }

  /** Longest prefix match, ignoring load; random ties (so no match spreads at random). */
  static RoutingPolicy longestMatch() {
    return argmin("ref-longest-match", c -> -c.matchedTokens());
  }

  private static RoutingPolicy argmin(String name, ToDoubleFunction<CandidateView> score) {
    return new RoutingPolicy() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public RoutingDecision route(RoutingContext context) {
        List<CandidateView> candidates = context.candidates();
        if (candidates.isEmpty()) {
          return context.noCandidates();
        }
        CandidateView best = null;
        double bestScore = Double.POSITIVE_INFINITY;
        int ties = 0;
        for (CandidateView c : candidates) {
          double s = score.applyAsDouble(c);
          if (s < bestScore) {
            best = c;
            bestScore = s;
            ties = 1;
          } else if (s == bestScore && context.random().nextInt(++ties) == 0) {
            best = c;
          }
        }
        return RoutingDecision.routed(best, CostBreakdown.empty());
      }
    };
  }
}
