package io.github.kvroute.api;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The router's answer for one request: <em>routed</em> to a replica (with the predicted time to first
 * token and its breakdown, optionally the policy's own ranking score, and how many prompt tokens the
 * router believes are already cached there), optionally with a separate prefill replica for
 * prefill/decode disaggregation; or <em>rejected</em> with a reason and, when waiting would help, a
 * {@link #retryAfter()}.
 *
 * <p>The prediction and the score are different things: {@link #cost()} is milliseconds of TTFT, what
 * admission compares with a deadline and outcomes calibrate against; {@link #score()} is whatever the
 * policy minimised (weighted terms, externalities) and only explains the choice.
 *
 * <pre>{@code
 * RoutingDecision d = router.route(request);
 * if (d.isRouted()) forward(d.replicaId()); else reply429(d.retryAfter());
 * }</pre>
 *
 * <p>Immutable and thread-safe. A cost given term by term
 * ({@link #routed(CandidateView, CostBreakdown, double[], double)}) is kept as values and built
 * into its breakdown when {@link #cost()} is first asked; that breakdown is cached, and any thread
 * that asks gets an equal one.
 *
 * <p><b>Design notes.</b> The router returns one decision per request, and the host keeps it, so
 * its size is allocation on every request: a breakdown object and its array of values were 96
 * bytes beside the decision's 64. The standard estimate's six values are kept in fields here
 * instead, and the fields only a pair or a rejection needs sit in one object of their own, which a
 * routed whole-request decision does not have: 96 bytes in all.
 */
public final class RoutingDecision {
  /** Most terms a decision keeps as values in its own fields (the router's estimate has six). */
  static final int INLINE_TERMS = 6;

  private final String replicaId;
  private final long epoch;
  /** The policy's ranking score; NaN when it gave none. */
  private final double score;
  private final int matchedTokens;
  /** A pair's prefill side or a rejection; null for a routed whole-request decision. */
  private final Extra extra;
  /**
   * The cost as given; for a cost given as values ({@link #costTerms} set), the breakdown built from
   * them when {@link #cost()} is first asked, null before. Written at most once per thread with an
   * equal immutable breakdown (as {@link String#hashCode()} caches its hash), so any read sees null
   * or a complete breakdown.
   */
  private CostBreakdown cost;
  /** For a cost given as values: a breakdown naming its terms, in order (its values unused). */
  private final CostBreakdown costTerms;
  private final double term0;
  private final double term1;
  private final double term2;
  private final double term3;
  private final double term4;
  private final double term5;

  /**
   * The fields only a disaggregated pair or a rejection has, kept apart so that a routed
   * whole-request decision (nearly every one) does not carry them. Immutable.
   */
  private static final class Extra {
    final String prefillReplicaId;
    final long prefillEpoch;
    final RejectReason reason;
    final String detail;
    final Duration retryAfter;

    Extra(String prefillReplicaId, long prefillEpoch, RejectReason reason, String detail,
        Duration retryAfter) {
      this.prefillReplicaId = prefillReplicaId;
      this.prefillEpoch = prefillEpoch;
      this.reason = reason;
      this.detail = detail;
      this.retryAfter = retryAfter;
    }
  }

  /** A decision whose cost is the breakdown {@code cost}. */
  private RoutingDecision(String replicaId, long epoch, Extra extra, CostBreakdown cost,
      double score, int matchedTokens) {
    this.replicaId = replicaId;
    this.epoch = epoch;
    this.extra = extra;
    this.cost = cost;
    this.costTerms = null;
    this.score = score;
    this.matchedTokens = matchedTokens;
    this.term0 = 0;
    this.term1 = 0;
    this.term2 = 0;
    this.term3 = 0;
    this.term4 = 0;
    this.term5 = 0;
  }

  /**
   * A decision whose cost is {@code terms}' names with the values {@code millis}, kept in this
   * decision's fields ({@code terms} has at most {@link #INLINE_TERMS} terms; {@code millis} is
   * checked and copied).
   */
  private RoutingDecision(String replicaId, long epoch, Extra extra, CostBreakdown terms,
      double[] millis, double score, int matchedTokens) {
    this.replicaId = replicaId;
    this.epoch = epoch;
    this.extra = extra;
    this.cost = null;
    this.costTerms = terms;
    this.score = score;
    this.matchedTokens = matchedTokens;
    int n = terms.size();
    this.term0 = n > 0 ? millis[0] : 0;
    this.term1 = n > 1 ? millis[1] : 0;
    this.term2 = n > 2 ? millis[2] : 0;
    this.term3 = n > 3 ? millis[3] : 0;
    this.term4 = n > 4 ? millis[4] : 0;
    this.term5 = n > 5 ? millis[5] : 0;
  }

  /** This decision's fields with the cost {@code other}'s, as {@code other} keeps it. */
  private RoutingDecision(RoutingDecision fields, RoutingDecision other, double score) {
    this.replicaId = fields.replicaId;
    this.epoch = fields.epoch;
    this.extra = fields.extra;
    this.cost = other.cost;
    this.costTerms = other.costTerms;
    this.score = score;
    this.matchedTokens = fields.matchedTokens;
    this.term0 = other.term0;
    this.term1 = other.term1;
    this.term2 = other.term2;
    this.term3 = other.term3;
    this.term4 = other.term4;
    this.term5 = other.term5;
  }

  /**
   * A decision with the cost {@code sameTermsAs}'s terms valued {@code millis}: kept as values
   * when there are at most {@link #INLINE_TERMS} of them, else built into a breakdown at once.
   */
  private static RoutingDecision withValues(String replicaId, long epoch, Extra extra,
      CostBreakdown sameTermsAs, double[] millis, double score, int matchedTokens) {
    Checks.notNull(sameTermsAs, "sameTermsAs");
    Checks.notNull(millis, "millis");
    int n = sameTermsAs.size();
    if (millis.length < n) {
      throw new IllegalArgumentException("millis.length: " + millis.length
          + " (expected: at least sameTermsAs.size(), " + n + ")");
    }
    for (int i = 0; i < n; i++) {
      if (!Double.isFinite(millis[i])) {
        throw new IllegalArgumentException(sameTermsAs.term(i) + ": " + millis[i]
            + " (expected: finite milliseconds)");
      }
    }
    if (n > INLINE_TERMS) {
      CostBreakdown.Builder b = CostBreakdown.newBuilder(sameTermsAs);
      for (int i = 0; i < n; i++) {
        b.add(sameTermsAs.term(i), millis[i]);
      }
      return new RoutingDecision(replicaId, epoch, extra, b.build(), score, matchedTokens);
    }
    return new RoutingDecision(replicaId, epoch, extra, sameTermsAs, millis, score,
        matchedTokens);
  }

  /**
   * Routes the whole request to {@code chosen}.
   *
   * @param chosen the replica to serve the request; its id, epoch and matched tokens are taken
   * @param cost the predicted time to first token, or {@link CostBreakdown#empty()} to let the router
   *     estimate it; never a weighted ranking score (see {@link #withScore})
   * @return a routed decision
   */
  public static RoutingDecision routed(CandidateView chosen, CostBreakdown cost) {
    Checks.notNull(chosen, "chosen");
    return new RoutingDecision(chosen.replicaId(), chosen.epoch(), null,
        Checks.notNull(cost, "cost"), Double.NaN, chosen.matchedTokens());
  }

  /**
   * Routes the whole request to {@code chosen}, with the policy's ranking score: the same decision
   * as {@code routed(chosen, cost).withScore(score)}, built once (a policy that ranks by a score
   * returns one on every decision).
   *
   * @param chosen the replica to serve the request; its id, epoch and matched tokens are taken
   * @param cost the predicted time to first token, or {@link CostBreakdown#empty()} to let the router
   *     estimate it; never a weighted ranking score
   * @param score the policy's ranking score; finite (see {@link #withScore})
   * @return a routed decision
   * @throws IllegalArgumentException if {@code score} is NaN or infinite
   */
  public static RoutingDecision routed(CandidateView chosen, CostBreakdown cost, double score) {
    Checks.notNull(chosen, "chosen");
    Checks.argument(Double.isFinite(score), "score", score, "finite");
    return new RoutingDecision(chosen.replicaId(), chosen.epoch(), null,
        Checks.notNull(cost, "cost"), score, chosen.matchedTokens());
  }

  /**
   * Routes the whole request to {@code chosen}, its cost given term by term: the same decision as
   * {@code routed(chosen, cost, score)} for the breakdown {@code cost} of {@code sameTermsAs}'s
   * terms, in its order, valued {@code millis}, without building that breakdown. Up to six terms
   * are kept as values in the decision, and {@link #cost()} builds the breakdown when first asked;
   * {@link #costMillis()} and {@link #costTermMillis} read the values without building it. For a
   * policy (or router) that prices every candidate in the same terms and routes on every request.
   *
   * @param chosen the replica to serve the request; its id, epoch and matched tokens are taken
   * @param sameTermsAs a breakdown naming the terms, in order; its values are not used
   * @param millis each term's milliseconds, in {@code sameTermsAs}'s order: its first
   *     {@code sameTermsAs.size()} values are copied, each finite
   * @param score the policy's ranking score; finite (see {@link #withScore})
   * @return a routed decision
   * @throws IllegalArgumentException if {@code millis} is shorter than the terms, a value is NaN or
   *     infinite, or {@code score} is NaN or infinite
   */
  public static RoutingDecision routed(CandidateView chosen, CostBreakdown sameTermsAs,
      double[] millis, double score) {
    Checks.notNull(chosen, "chosen");
    Checks.argument(Double.isFinite(score), "score", score, "finite");
    return withValues(chosen.replicaId(), chosen.epoch(), null, sameTermsAs, millis, score,
        chosen.matchedTokens());
  }

  /**
   * Routes prefill to {@code prefill} and decode to {@code decode} (disaggregated serving).
   *
   * @param prefill the replica to prefill on; its matched tokens are taken
   * @param decode the replica to decode on, which {@link #replicaId()} names
   * @param cost the predicted time to first token of the pair, or {@link CostBreakdown#empty()}
   * @return a routed decision for the pair
   */
  public static RoutingDecision routedPair(
      CandidateView prefill, CandidateView decode, CostBreakdown cost) {
    Checks.notNull(prefill, "prefill");
    Checks.notNull(decode, "decode");
    return new RoutingDecision(decode.replicaId(), decode.epoch(),
        new Extra(prefill.replicaId(), prefill.epoch(), null, null, null),
        Checks.notNull(cost, "cost"), Double.NaN, prefill.matchedTokens());
  }

  /**
   * A rejection.
   *
   * @param reason why the request was rejected; not null
   * @param detail human-readable detail; not null
   * @param retryAfter when a retry could plausibly be admitted, or {@code null} if waiting would not help
   * @return a rejected decision
   */
  public static RoutingDecision rejected(RejectReason reason, String detail, Duration retryAfter) {
    Checks.notNull(reason, "reason");
    Checks.notNull(detail, "detail");
    if (retryAfter != null) {
      Checks.nonNegative(retryAfter, "retryAfter");
    }
    return new RoutingDecision(null, -1, new Extra(null, -1, reason, detail, retryAfter),
        CostBreakdown.empty(), Double.NaN, 0);
  }

  /**
   * This decision with {@code cost} in place of its own (the router fills in missing estimates).
   *
   * @param cost the predicted time to first token, by term; not null
   * @return a copy with {@code cost}
   * @throws IllegalStateException if the decision is a rejection (rejections carry no cost)
   */
  public RoutingDecision withCost(CostBreakdown cost) {
    Checks.notNull(cost, "cost");
    requireRouted("withCost");
    return new RoutingDecision(replicaId, epoch, extra, cost, score, matchedTokens);
  }

  /**
   * This decision with its cost given term by term in place of its own: the same decision as
   * {@code withCost(cost)} for the breakdown of {@code sameTermsAs}'s terms valued {@code millis},
   * without building it (see {@link #routed(CandidateView, CostBreakdown, double[], double)}).
   *
   * @param sameTermsAs a breakdown naming the terms, in order; its values are not used
   * @param millis each term's milliseconds, in {@code sameTermsAs}'s order: its first
   *     {@code sameTermsAs.size()} values are copied, each finite
   * @return a copy with that cost
   * @throws IllegalArgumentException if {@code millis} is shorter than the terms or a value is NaN
   *     or infinite
   * @throws IllegalStateException if the decision is a rejection
   */
  public RoutingDecision withCost(CostBreakdown sameTermsAs, double[] millis) {
    requireRouted("withCost");
    return withValues(replicaId, epoch, extra, sameTermsAs, millis, score, matchedTokens);
  }

  /**
   * This decision with the policy's ranking score: what the policy minimised to choose it, in the
   * policy's own units (hybrid-cost: weighted milliseconds plus externalities). For explanation only;
   * the router and admission read {@link #cost()}.
   *
   * @param score the policy's ranking score; finite
   * @return a copy with {@code score}
   * @throws IllegalArgumentException if {@code score} is NaN or infinite
   * @throws IllegalStateException if the decision is a rejection
   */
  public RoutingDecision withScore(double score) {
    Checks.argument(Double.isFinite(score), "score", score, "finite");
    requireRouted("withScore");
    return new RoutingDecision(this, this, score);
  }

  /** {@return whether the request was routed; {@code false} for a rejection} */
  public boolean isRouted() {
    return extra == null || extra.reason == null;
  }

  /**
   * {@return the replica that serves the request (the decode replica of a pair)}
   *
   * @throws IllegalStateException if the decision is a rejection
   */
  public String replicaId() {
    requireRouted("replicaId");
    return replicaId;
  }

  /** {@return epoch of {@link #replicaId()}; report it back in the {@link Outcome}} */
  public long epoch() {
    requireRouted("epoch");
    return epoch;
  }

  /** {@return the prefill replica when prefill and decode are placed separately} */
  public Optional<String> prefillReplicaId() {
    return Optional.ofNullable(extra == null ? null : extra.prefillReplicaId);
  }

  /** {@return epoch of the prefill replica, or -1 when there is none} */
  public long prefillEpoch() {
    return extra == null ? -1 : extra.prefillEpoch;
  }

  /**
   * {@return predicted time to first token, by term, in milliseconds: what admission compares with
   * the request's deadline} Empty for rejections.
   */
  public CostBreakdown cost() {
    CostBreakdown c = cost;
    if (c == null) {
      CostBreakdown.Builder b = CostBreakdown.newBuilder(costTerms);
      for (int i = 0, n = costTerms.size(); i < n; i++) {
        b.add(costTerms.term(i), termValue(i));
      }
      c = b.build();
      cost = c;
    }
    return c;
  }

  /**
   * {@return {@code cost().totalMillis()}, the predicted time to first token in milliseconds (0 for
   * a rejection), without building the breakdown}
   */
  public double costMillis() {
    CostBreakdown c = cost;
    if (c != null) {
      return c.totalMillis();
    }
    // the breakdown's own sum: from 0, term by term in order, so the same double
    double sum = 0;
    for (int i = 0, n = costTerms.size(); i < n; i++) {
      sum += termValue(i);
    }
    return sum;
  }

  /**
   * {@code cost().millis(term).orElse(ifAbsent)}, without building the breakdown or an
   * {@code OptionalDouble}.
   *
   * @param term a term's name
   * @param ifAbsent what to return when the cost has no such term
   * @return the term's milliseconds, or {@code ifAbsent}
   */
  public double costTermMillis(String term, double ifAbsent) {
    CostBreakdown c = cost;
    CostBreakdown names = c != null ? c : costTerms;
    for (int i = 0, n = names.size(); i < n; i++) {
      if (names.term(i).equals(term)) {
        return c != null ? c.millis(i) : termValue(i);
      }
    }
    return ifAbsent;
  }

  /** {@return {@code !cost().isEmpty()}, without building the breakdown} */
  public boolean hasCost() {
    CostBreakdown c = cost;
    return !(c != null ? c : costTerms).isEmpty();
  }

  /** The value of term {@code i} of a cost kept as values. */
  private double termValue(int i) {
    return switch (i) {
      case 0 -> term0;
      case 1 -> term1;
      case 2 -> term2;
      case 3 -> term3;
      case 4 -> term4;
      default -> term5;
    };
  }

  /** {@return the policy's ranking score ({@link #withScore}); empty when the policy gave none} */
  public OptionalDouble score() {
    return Double.isNaN(score) ? OptionalDouble.empty() : OptionalDouble.of(score);
  }

  /** {@return prompt tokens the router believes the chosen (prefill) replica already holds} */
  public int matchedTokens() {
    return matchedTokens;
  }

  /**
   * {@return why the request was rejected}
   *
   * @throws IllegalStateException if the decision routed the request
   */
  public RejectReason reason() {
    if (isRouted()) {
      throw new IllegalStateException("reason: none (expected: a rejected decision)");
    }
    return extra.reason;
  }

  /** {@return human-readable detail of a rejection; empty string for routed decisions} */
  public String detail() {
    return extra == null || extra.detail == null ? "" : extra.detail;
  }

  /** {@return when to retry a rejected request; empty if routed, or if waiting would not help} */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(extra == null ? null : extra.retryAfter);
  }

  private void requireRouted(String what) {
    if (!isRouted()) {
      throw new IllegalStateException(what + ": none, request was rejected (" + extra.reason
          + ") (expected: a routed decision)");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RoutingDecision d && epoch == d.epoch && prefillEpoch() == d.prefillEpoch()
        && matchedTokens == d.matchedTokens && Objects.equals(replicaId, d.replicaId)
        && Objects.equals(prefillId(), d.prefillId()) && cost().equals(d.cost())
        && Double.compare(score, d.score) == 0
        && reason0() == d.reason0() && Objects.equals(detail0(), d.detail0())
        && Objects.equals(retryAfter0(), d.retryAfter0());
  }

  @Override
  public int hashCode() {
    return Objects.hash(replicaId, epoch, prefillId(), cost(), matchedTokens, reason0(),
        retryAfter0());
  }

  @Override
  public String toString() {
    if (!isRouted()) {
      return "rejected " + extra.reason + ": " + extra.detail
          + (extra.retryAfter == null ? "" : ", retry after " + Checks.millisText(extra.retryAfter));
    }
    String prefill = prefillId();
    return "routed to " + replicaId + "#" + epoch
        + (prefill == null ? "" : " (prefill on " + prefill + "#" + prefillEpoch() + ")")
        + ", matched " + matchedTokens + " tokens, predicted " + cost()
        + (Double.isNaN(score) ? "" : ", score " + String.format(java.util.Locale.ROOT, "%.1f", score));
  }

  private String prefillId() {
    return extra == null ? null : extra.prefillReplicaId;
  }

  private RejectReason reason0() {
    return extra == null ? null : extra.reason;
  }

  private String detail0() {
    return extra == null ? null : extra.detail;
  }

  private Duration retryAfter0() {
    return extra == null ? null : extra.retryAfter;
  }
}
