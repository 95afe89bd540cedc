package io.github.kvroute.testkit;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.Scorer;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.core.CostTerms;
import io.github.kvroute.core.RoutingContexts;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * {@link RoutingContext}s over fixed views (built with {@link CandidateView#newBuilder()}), for
 * unit-testing a policy or an admission controller without a router. Views are split into the three
 * role lists by {@link CandidateView#role()}; the estimate is the router's own
 * ({@link RoutingContexts}): its standard cost terms ({@link CostTerms#standard}) under a given
 * {@link CostModel}, or the terms a test gives, with the router's containment and clamping.
 *
 * <pre>{@code
 * RoutingContext ctx = FixedRoutingContext.of(request, List.of(viewA, viewB), 42);
 * RoutingDecision d = myPolicy.route(ctx);
 * }</pre>
 *
 * <p>Thread-safety: the contexts are immutable; as thread-safe as the views (built views are
 * immutable), the random source (seeded sources are thread-safe) and the terms.
 */
public final class FixedRoutingContext {
  private FixedRoutingContext() {}

  /**
   * Views in their role lists, a seeded random source, time 0 and the default cost model.
   *
   * @param request the request routed
   * @param views the candidates, split into role lists by their {@link CandidateView#role()}
   * @param seed the seed of the context's random source
   * @return the context
   */
  public static RoutingContext of(Request request, List<CandidateView> views, long seed) {
    return of(request, views, RandomSource.seeded(seed), 0, CostModel.defaults());
  }

  /**
   * Views in their role lists, estimated by the standard terms under {@code model}.
   *
   * @param request the request routed
   * @param views the candidates, split into role lists by their {@link CandidateView#role()}
   * @param random the context's random source
   * @param nowNanos the context's time, in nanoseconds
   * @param model the cost model the standard terms use
   * @return the context
   */
  public static RoutingContext of(Request request, List<CandidateView> views,
      RandomSource random, long nowNanos, CostModel model) {
    return RoutingContexts.fixed(request, views, random, nowNanos, model);
  }

  /**
   * {@code context} as seen by a router sharing its fleet with {@code peers} times its own traffic
   * from other routers ({@link RoutingContext#peerRouters()}); everything else is {@code context}'s.
   *
   * @param context the context wrapped
   * @param peers other routers' traffic as a multiple of this router's; finite, {@code >= 0}
   * @return the context
   */
  public static RoutingContext withPeerRouters(RoutingContext context, double peers) {
    if (!(peers >= 0) || Double.isInfinite(peers)) {
      throw new IllegalArgumentException("peers: " + peers + " (expected: finite and >= 0)");
    }
    return new Peered(context, peers);
  }

  /**
   * Views in their role lists, estimated by {@code terms} (empty: every estimate is empty).
   *
   * @param request the request routed
   * @param views the candidates, split into role lists by their {@link CandidateView#role()}
   * @param random the context's random source
   * @param nowNanos the context's time, in nanoseconds
   * @param terms the cost terms whose sum is each estimate
   * @return the context
   */
  public static RoutingContext of(Request request, List<CandidateView> views,
      RandomSource random, long nowNanos, List<Scorer> terms) {
    return RoutingContexts.fixed(request, views, random, nowNanos, terms);
  }

  /** A context that reports {@code peers} and delegates everything else. */
  private static final class Peered implements RoutingContext {
    private final RoutingContext base;
    private final double peers;

    Peered(RoutingContext base, double peers) {
      this.base = base;
      this.peers = peers;
    }

    @Override public Request request() { return base.request(); }
    @Override public List<CandidateView> candidates() { return base.candidates(); }
    @Override public List<CandidateView> prefillCandidates() { return base.prefillCandidates(); }
    @Override public List<CandidateView> decodeCandidates() { return base.decodeCandidates(); }
    @Override public RandomSource random() { return base.random(); }
    @Override public long nowNanos() { return base.nowNanos(); }
    @Override public CostBreakdown estimate(CandidateView c) { return base.estimate(c); }
    @Override public double estimateMillis(CandidateView c) { return base.estimateMillis(c); }
    @Override public double weightedEstimateMillis(CandidateView c,
        ToDoubleFunction<String> weightOfTerm) {
      return base.weightedEstimateMillis(c, weightOfTerm);
    }
    @Override public double kvTransferMillis(CandidateView p, CandidateView d) {
      return base.kvTransferMillis(p, d);
    }
    @Override public double decodeWaitMillis(CandidateView d) { return base.decodeWaitMillis(d); }
    @Override public double peerRouters() { return peers; }
    @Override public RoutingDecision noCandidates() { return base.noCandidates(); }
  }
}
