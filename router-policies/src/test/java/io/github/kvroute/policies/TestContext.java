package io.github.kvroute.policies;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.core.CostTerms;
import io.github.kvroute.api.Scorer;
import java.util.List;
import java.util.function.Function;

/** A fixed {@link RoutingContext} for table-driven policy tests. */
final class TestContext implements RoutingContext {
  static final String MODEL = "model";
  private static final List<Scorer> TERMS = CostTerms.standard(CostModel.defaults());

  private final Request request;
  private final List<CandidateView> candidates;
  private final RandomSource random;
  private final long nowNanos;
  private final Function<CandidateView, CostBreakdown> estimate;

  TestContext(Request request, List<CandidateView> candidates, RandomSource random, long nowNanos,
      Function<CandidateView, CostBreakdown> estimate) {
    this.request = request;
    this.candidates = candidates;
    this.random = random;
    this.nowNanos = nowNanos;
    this.estimate = estimate;
  }

  /** The router's standard cost terms as the estimate. */
  static TestContext of(Request request, List<CandidateView> candidates, long seed) {
    return new TestContext(request, candidates, RandomSource.seeded(seed), 0,
        c -> standardEstimate(request, c));
  }

  static CostBreakdown standardEstimate(Request request, CandidateView c) {
    CostBreakdown.Builder b = CostBreakdown.newBuilder();
    for (Scorer s : TERMS) {
      b.add(s.name(), s.costMillis(request, c));
    }
    return b.build();
  }

  /** A request whose prompt is {@code tokens} distinct-ish token ids from {@code seed}. */
  static Request request(int tokens, int seed) {
    return Request.newBuilder().id("r-" + seed + "-" + tokens).model(MODEL)
        .prompt(PromptKey.ofTokens(tokens(tokens, seed), CacheNamespace.of(MODEL))).build();
  }

  static int[] tokens(int n, int seed) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = (seed * 7919 + i * 31) & 0xffff;
    }
    return t;
  }

  @Override
  public Request request() {
    return request;
  }

  @Override
  public List<CandidateView> candidates() {
    return candidates;
  }

  @Override
  public List<CandidateView> prefillCandidates() {
    return List.of();
  }

  @Override
  public List<CandidateView> decodeCandidates() {
    return List.of();
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
    return estimate.apply(candidate);
  }
}
