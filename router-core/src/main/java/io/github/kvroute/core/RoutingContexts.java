package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.collect.ImmutableList;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.Scorer;
import java.util.List;

/**
 * Routing contexts over fixed candidate lists, for tests and tools: unit-testing a policy or an
 * admission controller without a router, or asking a policy "what if" over hand-built views. The
 * estimate is the router's own implementation, with the same containment and clamping (a throwing or
 * non-finite term counts 0, a negative one 0); only the candidates are given instead of gathered.
 * The router never uses these on its request path.
 *
 * <pre>{@code
 * RoutingContext ctx = RoutingContexts.fixed(request, List.of(viewA, viewB),
 *     RandomSource.seeded(42), 0, CostModel.defaults());
 * RoutingDecision d = myPolicy.route(ctx);
 * }</pre>
 *
 * <p>Thread-safety: the contexts are immutable; as thread-safe as the views (built views are
 * immutable), the random source and the scorers.
 */
public final class RoutingContexts {
  private static final StandardEstimate.FailureSink IGNORED =
      (plugin, fallback, error) -> PluginGuard.rethrowIfFatal(error);

  private RoutingContexts() {}

  /**
   * Whether {@code context} is a router's explanation ({@code Router.explain}), a dry run whose
   * decision is never made: a policy that learns from the requests it is asked about (a running
   * share, a book of placements) should not learn from this one, so that explaining leaves its
   * later decisions as they would have been. False for every other context.
   *
   * @param context the context a policy was handed
   * @return whether it is a dry run
   */
  public static boolean isExplanation(RoutingContext context) {
    return context instanceof DecisionContext s && s.dryRun;
  }

  /**
   * Views in their role lists (by {@link CandidateView#role()}), estimated by
   * {@link CostTerms#standard} under {@code model}.
   *
   * @param request the request routed
   * @param views the candidates
   * @param random the context's random source
   * @param nowNanos the context's time, in nanoseconds
   * @param model the cost model of the standard terms
   * @return the context
   */
  public static RoutingContext fixed(Request request, List<CandidateView> views, RandomSource random,
      long nowNanos, CostModel model) {
    return fixed(request, views, random, nowNanos,
        CostTerms.standard(checkNotNull(model, "model: null (expected: non-null)")));
  }

  /**
   * As {@link #fixed(Request, List, RandomSource, long, CostModel)}, with a disaggregated pair's KV
   * move priced over {@code topology}'s links.
   *
   * @param request the request routed
   * @param views the candidates
   * @param random the context's random source
   * @param nowNanos the context's time, in nanoseconds
   * @param model the cost model of the standard terms
   * @param topology the placement and link bandwidths
   * @return the context
   */
  public static RoutingContext fixed(Request request, List<CandidateView> views, RandomSource random,
      long nowNanos, CostModel model, Topology topology) {
    RoutingContext ctx = fixed(request, views, random, nowNanos, model);
    ((Fixed) ctx).pairs(model, checkNotNull(topology, "topology: null (expected: non-null)"));
    return ctx;
  }

  /**
   * Views in their role lists, estimated by {@code terms} (empty: every estimate is empty). A view
   * that a term vetoes ({@code +Infinity}) is left out, as the router leaves it out.
   *
   * @param request the request routed
   * @param views the candidates
   * @param random the context's random source
   * @param nowNanos the context's time, in nanoseconds
   * @param terms the cost terms whose sum is each estimate
   * @return the context
   */
  public static RoutingContext fixed(Request request, List<CandidateView> views, RandomSource random,
      long nowNanos, List<Scorer> terms) {
    checkNotNull(terms, "terms: null (expected: a list of scorers)");
    return new Fixed(checkNotNull(request, "request: null (expected: non-null)"),
        checkNotNull(views, "views: null (expected: a list of views)"),
        checkNotNull(random, "random: null (expected: non-null)"), nowNanos,
        new StandardEstimate(terms, IGNORED));
  }

  private static final class Fixed extends StandardContext {
    private final List<CandidateView> mixed;
    private final List<CandidateView> prefill;
    private final List<CandidateView> decode;

    Fixed(Request request, List<CandidateView> views, RandomSource random, long nowNanos,
        StandardEstimate estimate) {
      ImmutableList.Builder<CandidateView> m = ImmutableList.builder();
      ImmutableList.Builder<CandidateView> p = ImmutableList.builder();
      ImmutableList.Builder<CandidateView> d = ImmutableList.builder();
      for (CandidateView v : views) {
        checkNotNull(v, "views: contains null (expected: views)");
        if (estimate.totalMillis(request, v) == Double.POSITIVE_INFINITY) {
          continue; // vetoed by a term: no policy sees it, as in the router
        }
        (v.role() == ReplicaRole.MIXED ? m : v.role() == ReplicaRole.PREFILL ? p : d).add(v);
      }
      this.mixed = m.build();
      this.prefill = p.build();
      this.decode = d.build();
      this.request = request;
      this.random = random;
      this.nowNanos = nowNanos;
      this.estimate = estimate;
    }

    @Override
    public List<CandidateView> candidates() {
      return mixed;
    }

    @Override
    public List<CandidateView> prefillCandidates() {
      return prefill;
    }

    @Override
    public List<CandidateView> decodeCandidates() {
      return decode;
    }
  }
}
