package io.github.kvroute.testkit;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.Scorer;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.core.CostTerms;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A {@link RoutingContext} over fixed views (built with {@link CandidateView#newBuilder()}), for
 * unit-testing a policy or an admission controller without a router. Views are split into the three
 * role lists by {@link CandidateView#role()}; {@link #estimate} sums the router's standard cost terms
 * ({@link CostTerms#standard}) under a given {@link CostModel}.
 *
 * <pre>{@code
 * RoutingContext ctx = FixedRoutingContext.of(request, List.of(viewA, viewB), 42);
 * RoutingDecision d = myPolicy.route(ctx);
 * }</pre>
 *
 * <p>Thread-safety: immutable; as thread-safe as the views (built views are immutable) and the
 * random source (seeded sources are thread-safe).
 */
public final class FixedRoutingContext implements RoutingContext {
  private final Request request;
  private final List<CandidateView> mixed;
  private final List<CandidateView> prefill;
  private final List<CandidateView> decode;
  private final RandomSource random;
  private final long nowNanos;
  private final List<Scorer> terms;

  private FixedRoutingContext(Request request, List<CandidateView> views, RandomSource random,
      long nowNanos, CostModel model) {
    this.request = Objects.requireNonNull(request, "request");
    List<CandidateView> m = new ArrayList<>();
    List<CandidateView> p = new ArrayList<>();
    List<CandidateView> d = new ArrayList<>();
    for (CandidateView v : views) {
      (v.role() == ReplicaRole.MIXED ? m : v.role() == ReplicaRole.PREFILL ? p : d).add(v);
    }
    this.mixed = List.copyOf(m);
    this.prefill = List.copyOf(p);
    this.decode = List.copyOf(d);
    this.random = Objects.requireNonNull(random, "random");
    this.nowNanos = nowNanos;
    this.terms = CostTerms.standard(Objects.requireNonNull(model, "model"));
  }

  /** Views in their role lists, a seeded random source, time 0 and the default cost model. */
  public static FixedRoutingContext of(Request request, List<CandidateView> views, long seed) {
    return of(request, views, RandomSource.seeded(seed), 0, CostModel.defaults());
  }

  public static FixedRoutingContext of(Request request, List<CandidateView> views,
      RandomSource random, long nowNanos, CostModel model) {
    return new FixedRoutingContext(request, List.copyOf(views), random, nowNanos, model);
  }

  @Override
  public Request request() {
    return request;
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

  @Override
  public RandomSource random() {
    return random;
  }

  @Override
  public long nowNanos() {
    return nowNanos;
  }

  @Override
  public CostBreakdown estimate(CandidateView candidate) {
    CostBreakdown.Builder b = CostBreakdown.newBuilder();
    for (Scorer term : terms) {
      double ms = term.costMillis(request, candidate);
      b.add(term.name(), Double.isFinite(ms) ? Math.max(0, ms) : 0);
    }
    return b.build();
  }
}
