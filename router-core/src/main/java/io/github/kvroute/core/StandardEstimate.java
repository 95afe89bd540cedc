package io.github.kvroute.core;

import com.google.common.collect.ImmutableList;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.Scorer;
import java.util.List;

/**
 * The router's standard estimate: the sum of its cost terms for one request on one candidate, in
 * milliseconds of predicted time to first token. The one implementation behind every
 * {@link io.github.kvroute.api.RoutingContext#estimate} — the router's own and the fixed contexts of
 * {@link RoutingContexts} that tests and tools use — so a policy is tested against the estimate it
 * gets in production.
 *
 * <p>Each term is contained: a scorer that throws counts 0 (the failure goes to the failure sink,
 * which the router logs once and reports to its listener), one that returns NaN or an infinity counts
 * 0, and a negative value counts 0.
 *
 * <p>Thread-safety: immutable; thread-safe when the scorers and the failure sink are.
 */
final class StandardEstimate {
  /** Where a throwing scorer is reported. */
  interface FailureSink {
    void failed(String plugin, RuntimeException error);
  }

  private final List<Scorer> terms;
  private final FailureSink failures;

  StandardEstimate(List<Scorer> terms, FailureSink failures) {
    this.terms = ImmutableList.copyOf(terms);
    this.failures = failures;
  }

  /** Term by term, in the terms' order. */
  CostBreakdown breakdown(Request request, CandidateView candidate) {
    CostBreakdown.Builder b = CostBreakdown.newBuilder();
    for (Scorer term : terms) {
      b.add(term.name(), termMillis(term, request, candidate));
    }
    return b.build();
  }

  /** The total of {@link #breakdown}, without allocating. */
  double totalMillis(Request request, CandidateView candidate) {
    double total = 0;
    for (int i = 0, n = terms.size(); i < n; i++) {
      total += termMillis(terms.get(i), request, candidate);
    }
    return total;
  }

  /** A term's value, contained: a throwing or non-finite scorer counts 0, a negative one 0. */
  private double termMillis(Scorer term, Request request, CandidateView candidate) {
    double ms;
    try {
      ms = term.costMillis(request, candidate);
    } catch (RuntimeException e) {
      failures.failed("scorer " + term.name(), e);
      return 0;
    }
    return Double.isFinite(ms) ? Math.max(0, ms) : 0;
  }
}
