package io.github.kvroute.core;

import com.google.common.collect.ImmutableList;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.Scorer;
import java.util.Arrays;
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

  /** {@link #kinds}: a host's scorer, called through the interface. */
  private static final int HOST = 0;
  private static final int QUEUE = 1;
  private static final int PREFILL = 2;
  private static final int STEP = 3;
  private static final int TRANSFER = 4;
  private static final int RISK = 5;
  private static final int KV_PRESSURE = 6;

  /** The terms, in order (an array: the list's bounds-checked get showed in profiles). */
  private final Scorer[] terms;
  /**
   * Which of the router's own terms each is, {@link #HOST} for any other: the loops over every term
   * of every candidate call the router's terms through their final classes, where the JIT inlines
   * them, instead of through one interface call site that sees six classes and inlines none (those
   * calls were about a tenth of a 64-replica decision). Same terms, same order, same values.
   */
  private final int[] kinds;
  /**
   * The standard terms in their standard order ({@link CostTerms#standard}), the router's default:
   * {@link #fill} then evaluates them one after another on the pooled view, without the loop's
   * dispatch on {@link #kinds} and the type checks of the calls through {@link CandidateView}.
   */
  private final boolean standardOrder;
  /** Where the standard order has its prefill term. */
  static final int PREFILL_INDEX = 1;
  /** The standard order's risk term; null otherwise. */
  private final StalenessRiskTerm risk;
  private final FailureSink failures;
  /** The first breakdown built, whose term names later ones share; null before. */
  private CostBreakdown firstBreakdown;

  StandardEstimate(List<Scorer> terms, FailureSink failures) {
    this.terms = ImmutableList.copyOf(terms).toArray(new Scorer[0]);
    this.kinds = new int[this.terms.length];
    for (int i = 0; i < this.terms.length; i++) {
      kinds[i] = kindOf(this.terms[i]);
    }
    this.standardOrder = Arrays.equals(kinds,
        new int[] {QUEUE, PREFILL, STEP, TRANSFER, RISK, KV_PRESSURE});
    this.risk = standardOrder ? (StalenessRiskTerm) this.terms[4] : null;
    this.failures = failures;
  }

  private static int kindOf(Scorer term) {
    if (term == QueueTerm.INSTANCE) {
      return QUEUE;
    } else if (term == PrefillTerm.INSTANCE) {
      return PREFILL;
    } else if (term == StepTerm.INSTANCE) {
      return STEP;
    } else if (term == TransferTerm.INSTANCE) {
      return TRANSFER;
    } else if (term instanceof StalenessRiskTerm) {
      return RISK;
    } else if (term == KvPressureTerm.INSTANCE) {
      return KV_PRESSURE;
    }
    return HOST;
  }

  /**
   * Term by term, in the terms' order; a pooled view of the route in progress answers from the terms
   * remembered when it was filled. Every breakdown after the first shares the first one's term
   * names (the routed decision's cost is one per decision; copying the names was a third of it).
   */
  CostBreakdown breakdown(Request request, CandidateView candidate) {
    CostBreakdown like = firstBreakdown;
    CostBreakdown.Builder b = like == null ? CostBreakdown.newBuilder(terms.length)
        : CostBreakdown.newBuilder(like);
    // a pooled view of the route in progress has its terms remembered: the chosen candidate's
    // breakdown is built from them, not from a second evaluation of every term
    double[] remembered = isFilled(request, candidate) ? ((MutableView) candidate).termMillis : null;
    for (int i = 0, n = terms.length; i < n; i++) {
      Scorer term = terms[i];
      double ms = remembered != null ? remembered[i] : termMillis(i, request, candidate);
      b.add(term.name(), Math.min(ms, Double.MAX_VALUE));
    }
    CostBreakdown built = b.build();
    if (like == null) {
      // racy on purpose: a breakdown is immutable (final fields), so any thread's is a fine template
      firstBreakdown = built;
    }
    return built;
  }

  /**
   * {@code RoutingDecision.routed(candidate, breakdown(request, candidate), score)}; for a pooled
   * view of the route in progress, without building the breakdown: the decision keeps the terms
   * remembered when the view was filled, named by the first breakdown built (whose names every
   * breakdown shares), and builds the same breakdown if a host asks for it.
   */
  RoutingDecision routed(Request request, CandidateView candidate, double score) {
    // read once: a racy field, null until the first breakdown is built
    CostBreakdown names = firstBreakdown;
    double[] remembered = finiteTerms(names, request, candidate);
    return remembered != null ? RoutingDecision.routed(candidate, names, remembered, score)
        : RoutingDecision.routed(candidate, breakdown(request, candidate), score);
  }

  /**
   * {@code decision.withCost(breakdown(request, candidate))}, without building the breakdown for a
   * pooled view of the route in progress (as {@link #routed}).
   */
  RoutingDecision withEstimate(RoutingDecision decision, Request request,
      CandidateView candidate) {
    CostBreakdown names = firstBreakdown;
    double[] remembered = finiteTerms(names, request, candidate);
    return remembered != null ? decision.withCost(names, remembered)
        : decision.withCost(breakdown(request, candidate));
  }

  /**
   * The terms remembered in a pooled view of the route in progress when all are finite (so that
   * {@link #breakdown}'s cap leaves them as they are) and {@code names}, a breakdown built before,
   * can name them; else null.
   */
  private double[] finiteTerms(CostBreakdown names, Request request, CandidateView candidate) {
    if (names == null || !isFilled(request, candidate)) {
      return null;
    }
    MutableView v = (MutableView) candidate;
    return v.standardMillis != Double.POSITIVE_INFINITY ? v.termMillis : null;
  }

  /**
   * The total of {@link #breakdown}, without allocating; {@code +Infinity} when a term vetoes the
   * candidate. A pooled view of the route in progress answers from the total computed when it was
   * filled.
   */
  double totalMillis(Request request, CandidateView candidate) {
    if (candidate instanceof MutableView v && v.filledFor(request)) {
      return v.standardMillis;
    }
    double total = 0;
    for (int i = 0, n = terms.length; i < n; i++) {
      total += termMillis(i, request, candidate);
    }
    return total;
  }

  /**
   * {@link #totalMillis} of a pooled view for the route in progress, remembering each term's value
   * in the view (its array is sized once), so that {@link #weightedMillis} need not evaluate the
   * terms again.
   */
  double fill(Request request, MutableView v) {
    int n = terms.length;
    if (v.termMillis.length != n) {
      v.termMillis = new double[n];
    }
    v.standardFilled = standardOrder && fillStandard(request, v);
    if (v.standardFilled) {
      double[] m = v.termMillis;
      double total = 0;
      for (int i = 0; i < n; i++) {
        total += m[i];
      }
      return total;
    }
    double total = 0;
    for (int i = 0; i < n; i++) {
      double ms = termMillis(i, request, v);
      v.termMillis[i] = ms;
      total += ms;
    }
    return total;
  }

  /**
   * The standard terms of {@code v} into its {@code termMillis}, the same calls in the same order
   * as {@link #termMillis} makes; false, and nothing reported, if one throws or is NaN or negative:
   * the caller then evaluates them term by term, contained (and reported) as the class notes say.
   */
  private boolean fillStandard(Request request, MutableView v) {
    double[] m = v.termMillis;
    try {
      m[0] = QueueTerm.INSTANCE.costMillis(request, v);
      m[PREFILL_INDEX] = PrefillTerm.INSTANCE.costMillis(request, v);
      // the step term's value, derived once per report (MutableView.report)
      m[2] = v.stepTermMillis;
      m[3] = TransferTerm.INSTANCE.costMillis(request, v);
      m[4] = risk.costMillis(request, v);
      m[5] = KvPressureTerm.INSTANCE.costMillis(request, v);
    } catch (Throwable e) {
      return false;
    }
    // NaN fails both comparisons
    return m[0] >= 0 && m[1] >= 0 && m[2] >= 0 && m[3] >= 0 && m[4] >= 0 && m[5] >= 0;
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
    for (int i = 0, n = terms.length; i < n; i++) {
      Scorer term = terms[i];
      double ms = filled ? remembered[i] : termMillis(i, request, candidate);
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
      return weightedRemembered((MutableView) candidate, weights);
    }
    double total = 0;
    for (int i = 0, n = terms.length; i < n; i++) {
      total += weights[i] * Math.min(termMillis(i, request, candidate), Double.MAX_VALUE);
    }
    return total;
  }

  /**
   * {@link #weightedMillis(Request, CandidateView, double[])} of a pooled view whose terms
   * {@link #fill} has just remembered for the request in progress (the caller knows it is).
   */
  static double weightedRemembered(MutableView v, double[] weights) {
    double[] remembered = v.termMillis;
    double total = 0;
    if (v.standardMillis != Double.POSITIVE_INFINITY) {
      // a finite total has finite terms (never NaN: fill counted those 0), which the cap leaves
      // as they are; the candidates a policy ranks are all such
      for (int i = 0; i < remembered.length; i++) {
        total += weights[i] * remembered[i];
      }
      return total;
    }
    for (int i = 0; i < remembered.length; i++) {
      total += weights[i] * Math.min(remembered[i], Double.MAX_VALUE);
    }
    return total;
  }

  /**
   * {@code weightOfTerm} of each term's name, in the terms' order: in {@code into} when it has the
   * terms' length, else in a new array.
   */
  double[] weights(ToDoubleFunction<String> weightOfTerm, double[] into) {
    int n = terms.length;
    double[] out = into.length == n ? into : new double[n];
    for (int i = 0; i < n; i++) {
      out[i] = weightOfTerm.applyAsDouble(terms[i].name());
    }
    return out;
  }

  /** Whether {@code candidate} is a pooled view whose terms {@link #fill} remembered for {@code request}. */
  private boolean isFilled(Request request, CandidateView candidate) {
    return candidate instanceof MutableView v && v.filledFor(request)
        && v.termMillis.length == terms.length;
  }

  /** Term {@code i}'s value, contained as the class comment says. */
  private double termMillis(int i, Request request, CandidateView candidate) {
    Scorer term = terms[i];
    double ms;
    try {
      ms = switch (kinds[i]) {
        case QUEUE -> QueueTerm.INSTANCE.costMillis(request, candidate);
        case PREFILL -> PrefillTerm.INSTANCE.costMillis(request, candidate);
        case STEP -> StepTerm.INSTANCE.costMillis(request, candidate);
        case TRANSFER -> TransferTerm.INSTANCE.costMillis(request, candidate);
        case RISK -> ((StalenessRiskTerm) term).costMillis(request, candidate);
        case KV_PRESSURE -> KvPressureTerm.INSTANCE.costMillis(request, candidate);
        default -> term.costMillis(request, candidate);
      };
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
