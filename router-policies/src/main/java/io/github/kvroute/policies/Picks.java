package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RandomSource;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Selection helpers shared by the built-in policies: arg-min with the two tie-breaks the peers use
 * (first in candidate order, as Python's {@code min(range(...))} and Rust's {@code min_by_key}; or
 * uniformly at random among the tied, by reservoir sampling, as AIBrix and Dynamo do).
 *
 * <p>Stateless; allocation-free.
 */
final class Picks {
  private Picks() {}

  /** Index of the least {@code key}; ties go to the first in order. {@code -1} when empty. */
  static int firstMin(List<CandidateView> candidates, ToLongFunction<CandidateView> key) {
    int best = -1;
    long bestKey = Long.MAX_VALUE;
    for (int i = 0; i < candidates.size(); i++) {
      long k = key.applyAsLong(candidates.get(i));
      if (best < 0 || k < bestKey) {
        best = i;
        bestKey = k;
      }
    }
    return best;
  }

  /** Index of the least {@code key}; ties broken uniformly at random. {@code -1} when empty. */
  static int randomMin(
      List<CandidateView> candidates, ToDoubleFunction<CandidateView> key, RandomSource random) {
    int best = -1;
    double bestKey = Double.POSITIVE_INFINITY;
    int ties = 0;
    for (int i = 0; i < candidates.size(); i++) {
      double k = key.applyAsDouble(candidates.get(i));
      if (best < 0 || k < bestKey) {
        best = i;
        bestKey = k;
        ties = 1;
      } else if (k == bestKey) {
        ties++;
        if (random.nextInt(ties) == 0) {
          best = i;
        }
      }
    }
    return best;
  }
}
