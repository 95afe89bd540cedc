package io.github.kvroute.core;

import com.google.common.collect.ImmutableList;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.Scorer;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The router's standard estimate: the sum of its cost terms for one request on one candidate, in
 * milliseconds of predicted time to first token. The one implementation behind every
 * {@link io.github.kvroute.api.RoutingContext#estimate} — the router's own and the fixed contexts of
 * {@link RoutingContexts} that tests and tools use — so a policy is tested against the estimate it
 * gets in production.
 *
 * <p>Each term is contained: {@code +Infinity} vetoes the candidate (the router takes it out of the
 * candidate lists before any policy sees it); a scorer that throws, or returns NaN or a negative
 * value, is a plugin failure (reported to the failure sink, which the router logs once, counts and
 * reports to its listener) and counts 0. Finite values are added as they are (a sum of finite terms
 * that overflows is a veto too). A breakdown shows a veto as the largest finite cost, because a
 * breakdown holds finite values.
 *
 * <p>Thread-safety: thread-safe when the scorers and the failure sink are; its one mutable field
 * holds an immutable template, written once (a racing first write is harmless).
 */
final class StandardEstimate {
  /** Where a throwing scorer is reported. */
  interface FailureSink {
    void failed(String plugin, String fallback, Throwable error);
  }

  /** What a failing term costs, as the log says it. */
  static final String TERM_FALLBACK = "used 0 ms for this term instead";

  private final List<Scorer> terms;
  private final FailureSink failures;
  /** The first breakdown built, whose term names later ones share; null before. */
  private CostBreakdown firstBreakdown;

  StandardEstimate(List<Scorer> terms, FailureSink failures) {
    this.terms = ImmutableList.copyOf(terms);
    this.failures = failures;
  }

  /**
   * Term by term, in the terms' order. Every breakdown after the first shares the first one's term
   * names (the routed decision's cost is one per decision; copying the names was a third of it).
   */
  CostBreakdown breakdown(Request request, CandidateView candidate) {
    CostBreakdown like = firstBreakdown;
    CostBreakdown.Builder b = like == null ? CostBreakdown.newBuilder(terms.size())
        : CostBreakdown.newBuilder(like);
    for (int i = 0, n = terms.size(); i < n; i++) {
      Scorer term = terms.get(i);
      b.add(term.name(), Math.min(termMillis(term, request, candidate), Double.MAX_VALUE));
    }
    CostBreakdown built = b.build();
    if (like == null) {
      // racy on purpose: a breakdown is immutable (final fields), so any thread's is a fine template
      firstBreakdown = built;
    }
    return built;
  }

  /**
   * The total of {@link #breakdown}, without allocating; {@code +Infinity} when a term vetoes the
   * candidate. A pooled view of the route in progress answers from the total computed when it was
   * filled.
   */
  double totalMillis(Request request, CandidateView candidate) {
    if (candidate instanceof MutableView v && v.request == request
        && !Double.isNaN(v.standardMillis)) {
      return v.standardMillis;
    }
    double total = 0;
    for (int i = 0, n = terms.size(); i < n; i++) {
      total += termMillis(terms.get(i), request, candidate);
    }
    return total;
  }

  /**
   * {@link #totalMillis} of a pooled view for the route in progress, remembering each term's value
   * in the view (its array is sized once), so that {@link #weightedMillis} need not evaluate the
   * terms again.
   */
  double fill(Request request, MutableView v) {
    int n = terms.size();
    if (v.termMillis.length != n) {
      v.termMillis = new double[n];
    }
    double total = 0;
    for (int i = 0; i < n; i++) {
      double ms = termMillis(terms.get(i), request, v);
      v.termMillis[i] = ms;
      total += ms;
    }
    return total;
  }

  /**
   * The sum of {@link #breakdown}'s terms, each times {@code weightOfTerm} of its name, without
   * allocating; a pooled view of the route in progress answers from the terms remembered when it
   * was filled.
   */
  double weightedMillis(Request request, CandidateView candidate,
      ToDoubleFunction<String> weightOfTerm) {
    boolean filled = isFilled(request, candidate);
    double[] remembered = filled ? ((MutableView) candidate).termMillis : null;
    double total = 0;
    for (int i = 0, n = terms.size(); i < n; i++) {
      Scorer term = terms.get(i);
      double ms = filled ? remembered[i] : termMillis(term, request, candidate);
      total += weightOfTerm.applyAsDouble(term.name()) * Math.min(ms, Double.MAX_VALUE);
    }
    return total;
  }

  /**
   * {@link #weightedMillis(Request, CandidateView, ToDoubleFunction)} with the weights already
   * resolved ({@link #weights}): for a pooled view of the route in progress, a dot product over the
   * remembered terms. The same sum, added in the same order, as asking the function term by term.
   */
  double weightedMillis(Request request, CandidateView candidate, double[] weights) {
    if (isFilled(request, candidate)) {
      double[] remembered = ((MutableView) candidate).termMillis;
      double total = 0;
      for (int i = 0; i < remembered.length; i++) {
        total += weights[i] * Math.min(remembered[i], Double.MAX_VALUE);
      }
      return total;
    }
    double total = 0;
    for (int i = 0, n = terms.size(); i < n; i++) {
      total += weights[i] * Math.min(termMillis(terms.get(i), request, candidate), Double.MAX_VALUE);
    }
    return total;
  }

  /**
   * {@code weightOfTerm} of each term's name, in the terms' order: in {@code into} when it has the
   * terms' length, else in a new array.
   */
  double[] weights(ToDoubleFunction<String> weightOfTerm, double[] into) {
    int n = terms.size();
    double[] out = into.length == n ? into : new double[n];
    for (int i = 0; i < n; i++) {
      out[i] = weightOfTerm.applyAsDouble(terms.get(i).name());
    }
    return out;
  }

  /** Whether {@code candidate} is a pooled view whose terms {@link #fill} remembered for {@code request}. */
  private boolean isFilled(Request request, CandidateView candidate) {
    return candidate instanceof MutableView v && v.request == request
        && !Double.isNaN(v.standardMillis) && v.termMillis.length == terms.size();
  }

  /** A term's value, contained as the class comment says. */
  private double termMillis(Scorer term, Request request, CandidateView candidate) {
    double ms;
    try {
      ms = term.costMillis(request, candidate);
    } catch (Throwable e) {
      failures.failed("scorer " + term.name(), TERM_FALLBACK, e);
      return 0;
    }
    if (Double.isNaN(ms) || ms < 0) {
      failures.failed("scorer " + term.name(), TERM_FALLBACK, new IllegalStateException(
          term.name() + ": " + ms + " (expected: >= 0 ms, or +Infinity to veto the candidate)"));
      return 0;
    }
    return ms;
  }
}
