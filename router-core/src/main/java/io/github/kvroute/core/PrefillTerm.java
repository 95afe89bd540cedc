package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.Scorer;

/**
 * Recomputing what the replica does not hold: {@code overhead + missing x ms_per_token}, where the
 * expected reuse is the matched prefix discounted by how often outcomes confirmed this replica's cache
 * beliefs. For example, 4,000 missing tokens at 0.06 ms cost 240 ms; 1,000 at 20 + 0.035/token,
 * 55 ms (docs/cost-model.md, "Prefill term").
 */
final class PrefillTerm implements Scorer {
  static final PrefillTerm INSTANCE = new PrefillTerm();

  private PrefillTerm() {}

  @Override
  public String name() {
    return CostTerm.PREFILL.termName();
  }

  @Override
  public double costMillis(Request request, CandidateView candidate) {
    return prefillMillis(request.promptTokens(), candidate);
  }

  static double prefillMillis(int promptTokens, CandidateView candidate) {
    double reused = Math.min(promptTokens, candidate.matchedTokens() * candidate.cacheHitReliability());
    return computeMillis(promptTokens - reused, candidate);
  }

  /**
   * The cost of computing {@code tokens} prompt tokens on {@code candidate}: overhead + per token.
   * Nothing to compute costs no per-token time even on a replica whose rate makes it infinite (a
   * reported rate of a few tokens per eon), where {@code 0 x Infinity} would be NaN.
   */
  static double computeMillis(double tokens, CandidateView candidate) {
    double perToken = tokens == 0 ? 0 : tokens * candidate.prefillMillisPerToken();
    return candidate.prefillOverheadMillis() + perToken;
  }
}
