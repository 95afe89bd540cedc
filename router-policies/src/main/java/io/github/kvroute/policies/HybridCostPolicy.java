package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.CostTerm;
import io.github.kvroute.core.PairSelection;
import io.github.kvroute.core.RoutingContexts;
import io.github.kvroute.core.StandardRanking;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The default: place each request where its estimated time to first token is least, counting waiting,
 * recomputing the missing prefix, loading adapters or moving KV, and the risk of trusting stale
 * telemetry — the router's hybrid cost (docs/cost-model.md), with admission as the veto after it —
 * plus what the placement costs other requests (cache pollution and the queue it adds for later
 * arrivals; see {@link Externalities}).
 *
 * <h2>Design notes</h2>
 * The terms come from the router's own estimate ({@link RoutingContext#estimate}), in milliseconds, so
 * each weight is dimensionless and a weight of 1 everywhere means "minimise predicted TTFT" (the
 * default is 1 everywhere but the staleness risk, which ranks at 0:
 * {@link HybridCostPolicyProvider#DEFAULT_WEIGHTS}). The
 * worked example of docs/cost-model.md ("Partial locality wins"; 0.06 ms per missing token, 4,000
 * reusable tokens): R0 = 300 + 0, R1 = 0 + 240, R2 = 100 + 120 = 220, so R2 wins; cache-only would
 * pick R0 and least-queue R1. Preble (ICLR 2025) makes the same argument: prefix reuse and load
 * must be optimised together.
 *
 * <p>The ranking score is the weighted terms plus the externalities; the decision carries the
 * predicted TTFT (the unweighted estimate) as its {@linkplain RoutingDecision#cost() cost}, because that
 * is what admission compares with the request's deadline, and the ranking score apart as its
 * {@linkplain RoutingDecision#score() score}. Weights are keyed by {@link CostTerm}; a host's own
 * scorer (no constant) is weighted 1.
 *
 * <p>With other routers on the fleet ({@link RoutingContext#peerRouters()}), a prompt goes to its
 * prefix's home when home costs at most five times the best plus 10 ms (twice, for a prefix this
 * router has not routed in the last minute or one with more than a replica's share of its recent
 * requests: {@link PrefixHome#slack}), so that routers that do not share their indexes keep one
 * copy of a prefix, not one each. The rule holds under KV events too, where the index shows every
 * client's copies: routers that each followed the cheapest copy they saw kept one copy per router,
 * made while the others' events were on their way (multi-tenant, three routers, events a second
 * late: 21.66 following the copies, 88.81 going home). The home is the one
 * {@link HomeBook} agrees on for the prefixes this router routed recently (rendezvous hashing with
 * bounded loads, {@link BoundedHomes}), else the plain {@link PrefixHome} one; it is priced as
 * holding the deepest copy of the prompt this router knows of, since its peers send the prefix
 * there.
 *
 * <p>With other routers on traffic that shares no prefixes (under a fifth of this router's recent
 * requests repeat a prefix it routed within the minute: {@link HomeBook#repeatShare}) there is no
 * copy to agree on, and the rules above cost: the queueing externality, which moves each request
 * in proportion to its prefill by a queue every router reads from the same late report, moves
 * every router's large prompts onto the same replicas together, and a home as wide as a new
 * prefix's overrides the cheapest replica for a hash. There the ranking is the predicted TTFT with
 * the staleness risk at weight 1 or more (what the other routers may have sent since the report
 * is exactly what this router cannot see, and with no prefixes to protect the risk no longer
 * steers requests off their holders), and no externality (the blocks a placement evicts are seldom
 * asked for again: a conversation trace whose long turns repeat under a tenth of their prefixes
 * lost 15% of its capacity to pricing them). A request with a budget goes home within
 * {@link PrefixHome#UNIQUE_SLACK} x the best plus 10 ms: still a spread that routers reading the
 * same report do not share, which admission, trusting the report, needs at loads near a
 * backlog; one without a budget goes to the best (a home there cost {@code mixed-sizes} 3% of its
 * capacity and gained no scale of it). While every candidate waits over
 * {@code saturation_ms} there, a request with a budget goes where this router's own in-flight
 * prompt tokens are fewest instead ({@link OwnLoadUnderBacklog}): the late report ranks every
 * router's requests onto the same replica, whose estimate is then the most likely too low for
 * admission. Measured in docs/cost-model.md ("Unique traffic with several routers"). A router
 * alone, and traffic that shares prefixes, keep the rules above.
 *
 * <p>A router alone skips a replica that has {@code load_bound} (default 2) times the candidates'
 * mean of its requests in flight and a calibrated wait over 100 ms ({@link LoadBound}): a hot
 * prefix's holder looks cheap to every request that finds the prefix there while the decodes it
 * carries slow all of them, so the prefix is copied once its holder carries twice its share and
 * waits, not after its queue has passed the objective. A request without a budget that the ranking
 * would send to copy its prefix stays with the deepest holder while that ranks within
 * {@code stay_ratio} (default 4) times the best, is within the bound and carries no other prefix's
 * traffic: the queue passes and the copy stays, taking a prefix's worth of a full cache
 * ({@link HolderStay}).
 *
 * <p>Past saturation (every candidate's calibrated wait over {@code saturation_ms}, default
 * {@value PastSaturation#DEFAULT_MILLIS}, and at a router alone over the mean request's predicted
 * prefill too, for {@value PastSaturation#START_MILLIS} ms) a router alone that is told no
 * deadline piles the excess onto one replica, the deepest holder that waits
 * longest, so that the others drain and keep their requests in time; routers sharing the fleet
 * pile onto the one replica they all rank first for a fixed key, once the backlog has lasted
 * {@value PastSaturation#PEER_START_MILLIS} ms and while every candidate waits over
 * {@value PastSaturation#PEER_OPEN_MILLIS} ms ({@link PastSaturation}).
 *
 * <p>A router alone places a prompt that no replica holds, on traffic that reuses prefixes, where
 * the least work is in flight among the replicas near the best predicted TTFT: the placement makes
 * the replica the prefix's holder for the requests that follow ({@link NewPrefixPlacement}); under a
 * backlog, such a prompt with a deadline is rejected when its own work is large
 * ({@code shed_new_prefixes}, on by default).
 *
 * <p>Each candidate's wait is ranked as admission judges it: the queue estimate times what
 * outcomes taught about that replica's real waits ({@link CandidateView#calibratedQueueMillis()}),
 * not the estimate alone. Ranked by the raw one, the replica chosen was often the one whose wait is
 * most underestimated: a request with a deadline then missed what admission had let through
 * (hot-prefix with deadlines, seeds 1-10: 85.65 to 92.33 capacity), and a hot prefix's holder with
 * a long real queue kept its traffic (hot-prefix without deadlines 79.05 to 81.11, three routers
 * 60.92 to 63.79; docs/cost-model.md, "Calibration").
 *
 * <p>Ties (within a microsecond) are broken with the router's seeded randomness, so idle identical
 * replicas share cold traffic instead of all of it landing on the first (GIE issue #1204). With
 * other routers, by this router's own order of the replicas instead ({@link TieOrders}), drawn
 * from its randomness and drawn again every {@value #TIE_ORDER_SECONDS} s ({@code tie_order_ms}):
 * its tied requests fill one idle replica before the next, and no replica stays every router's
 * first for long. Drawn per request, the Mooncake trace with three routers lost 11-14% of its
 * capacity under KV events and 1-2% with plain metrics; never drawn again ({@code tie_order_ms=0})
 * it serves 5-7% more under KV events, but while the fleet idles a router's ties all go to one
 * replica (docs/cost-model.md, "The Mooncake trace with several routers").
 *
 * <p>Disaggregated fleets (no whole-request candidates, but prefill and decode pools): the pair
 * of least weighted prefill cost plus weighted KV move over the pair's link, among pairs whose decode
 * replica can hold the request by the time the prefill ends ({@link PairSelection#leastCost}); the
 * decision's cost is the pair's predicted TTFT.
 *
 * <p>Stale telemetry: with {@code stale=exclude}, candidates whose reports are older than the router's
 * staleness limit are skipped while fresher ones exist; with none fresh the request is rejected
 * ({@link RejectReason#POLICY}). The default, {@code penalize}, keeps them, ranked with the risk
 * term at its weight (0 unless {@code risk_weight} is set).
 *
 * <p>Thread-safety: thread-safe. The configuration is immutable; the only state is the
 * {@link HomeBook}, the {@link NewPrefixPlacement}'s reuse share and the {@link TieOrders} (an
 * immutable value behind a volatile), all thread-safe and read without a monitor, and the
 * {@link HolderStay}'s per-replica counts, each behind its own monitor. Each router
 * builds its own instance, so each has its own.
 */
final class HybridCostPolicy implements RoutingPolicy, StandardRanking.Ranked {
  static final String NAME = "hybrid-cost";
  private static final double TIE_MILLIS = 1e-3;
  /** How long a router keeps its order of the replicas for ties among routers, by default. */
  static final long TIE_ORDER_SECONDS = TieOrders.DEFAULT_SECONDS;
  /** This router's order of the replicas for ties among routers. */
  private final TieOrders tieOrders;
  /**
   * With other routers, traffic counts as sharing prefixes while at least this share of the
   * requests repeats a prefix routed within the minute ({@link HomeBook#repeatShare}): the named
   * scenarios that share prefixes read 0.3 or more, a conversation trace of long unique turns
   * under 0.2 (docs/cost-model.md, "The Mooncake trace with several routers").
   */
  static final double SHARED_TRAFFIC_SHARE = 0.2;

  /** Which externalities the ranking adds to the predicted TTFT. */
  enum Externality {
    NONE(false, false), POLLUTION(true, false), QUEUEING(false, true), ALL(true, true);

    final boolean pollution;
    final boolean queueing;

    Externality(boolean pollution, boolean queueing) {
      this.pollution = pollution;
      this.queueing = queueing;
    }
  }

  /** Only the weights other than 1; empty means "minimise predicted TTFT" with every term. */
  private final Map<CostTerm, Double> weights;
  /** Where this router and its peers home the prefixes it routes (used only with peers). */
  private final HomeBook book = new HomeBook();
  /** Where this router, alone, places a prompt no replica holds (used only without peers). */
  private final NewPrefixPlacement newPrefix;
  private final boolean excludeStale;
  private final Externality externality;
  /** A router alone skips a replica past this many times the mean requests in flight; 0: off. */
  private final double loadBound;
  /** When a router alone keeps a request with its prefix's deepest holder. */
  private final HolderStay holders;
  /** Where a request without a deadline goes once every replica is backlogged. */
  private final PastSaturation pastSaturation;
  /** The calibrated wait past which every candidate counts as backlogged; 0: never. */
  private final double saturationMillis;

  /** {@link #weights} by term name, for {@link RoutingContext#weightedEstimateMillis}. */
  private final ToDoubleFunction<String> weightOfTerm;
  /**
   * The weights for several routers on unique traffic, by term name: {@link #weights} with the
   * staleness risk at 1 or more; null when every weight there is 1.
   */
  private final ToDoubleFunction<String> uniqueWeightOfTerm;
  /**
   * The same ranking as {@link #rankingMillis}, which the router computes with each candidate's
   * view (the same bits; {@link StandardRanking}'s notes say why it is faster).
   */
  private final StandardRanking ranking;

  HybridCostPolicy(Map<CostTerm, Double> weights, boolean excludeStale, Externality externality,
      boolean shedNewPrefixes, double loadBound) {
    this(weights, excludeStale, externality, shedNewPrefixes, loadBound,
        PastSaturation.DEFAULT_MILLIS);
  }

  HybridCostPolicy(Map<CostTerm, Double> weights, boolean excludeStale, Externality externality,
      boolean shedNewPrefixes, double loadBound, double saturationMillis) {
    this(weights, excludeStale, externality, shedNewPrefixes, loadBound, saturationMillis,
        TIE_ORDER_SECONDS * 1_000, HolderStay.DEFAULT_RATIO);
  }

  /**
   * @param tieOrderMillis how long a router sharing the fleet keeps its order of the replicas for
   *     ties; 0: for its whole life
   * @param stayRatio {@link HolderStay}'s ratio; 0: off
   */
  HybridCostPolicy(Map<CostTerm, Double> weights, boolean excludeStale, Externality externality,
      boolean shedNewPrefixes, double loadBound, double saturationMillis, long tieOrderMillis,
      double stayRatio) {
    this.tieOrders = new TieOrders(tieOrderMillis);
    this.holders = new HolderStay(stayRatio);
    this.loadBound = loadBound;
    this.pastSaturation = new PastSaturation(saturationMillis);
    this.saturationMillis = saturationMillis;
    this.newPrefix = new NewPrefixPlacement(shedNewPrefixes);
    this.weights = weights.isEmpty() ? Map.of() : new EnumMap<>(weights);
    this.excludeStale = excludeStale;
    this.externality = externality;
    this.weightOfTerm = termWeights(this.weights);
    Map<CostTerm, Double> unique = new EnumMap<>(CostTerm.class);
    unique.putAll(this.weights);
    unique.compute(CostTerm.RISK, (term, w) -> w == null || w <= 1 ? null : w);
    this.uniqueWeightOfTerm = unique.isEmpty() ? null : termWeights(unique);
    this.ranking = new StandardRanking(this.weights.isEmpty() ? null : weightOfTerm,
        externality.pollution, externality.queueing);
  }

  @Override
  public StandardRanking standardRanking() {
    return ranking;
  }

  /**
   * The weight of a term by its name, 1 for names without one (a host's own scorers): a scan of at
   * most six names, allocation-free (the router asks it once per term per decision; other contexts
   * may ask it for every term of every candidate).
   */
  private static ToDoubleFunction<String> termWeights(Map<CostTerm, Double> weights) {
    String[] names = weights.keySet().stream().map(CostTerm::termName).toArray(String[]::new);
    double[] values = weights.values().stream().mapToDouble(Double::doubleValue).toArray();
    return name -> {
      for (int i = 0; i < names.length; i++) {
        if (names[i].equals(name)) {
          return values[i];
        }
      }
      return 1.0;
    };
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    List<CandidateView> candidates = context.candidates();
    if (candidates.isEmpty()) {
      if (!context.prefillCandidates().isEmpty() && !context.decodeCandidates().isEmpty()) {
        return routePair(context);
      }
      return context.noCandidates();
    }
    boolean onlyFresh = excludeStale && anyFresh(candidates);
    if (excludeStale && !onlyFresh) {
      return RoutingDecision.rejected(RejectReason.POLICY,
          "every candidate's telemetry is stale (stale=exclude)", null);
    }
    // several routers on traffic that shares no prefixes: ranked apart, a narrow home (class notes)
    boolean peers = PrefixHome.applies(context.peerRouters());
    boolean unique = peers && book.repeatShare() < SHARED_TRAFFIC_SHARE;
    // the router's scores of the candidates in the list's order, or null: then candidate by
    // candidate (the same values either way)
    double[] scores = unique ? null : ranking.scores(context);
    double queueing = !unique && externality.queueing && scores == null
        ? Externalities.fleetRequestsInSystem(candidates) : 0;
    double limit = peers ? Double.POSITIVE_INFINITY
        : LoadBound.limit(candidates, onlyFresh, loadBound);
    CandidateView best = null;
    double bestMillis = Double.POSITIVE_INFINITY;
    int ties = 0;
    int deepest = 0;
    // indexed loops over the candidate lists (random access): a for-each allocated an iterator per
    // loop whenever escape analysis gave up on it (about one decision in five on the benchmark)
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      deepest = Math.max(deepest, c.matchedBlocks());
      if (onlyFresh && c.telemetryStale() || LoadBound.over(c, limit)) {
        continue;
      }
      double ms = (scores != null ? scores[i] : rankingMillis(context, c, unique, queueing))
          + calibrationMillis(c);
      if (best == null || ms < bestMillis - TIE_MILLIS) {
        best = c;
        bestMillis = ms;
        ties = 1;
      } else if (Math.abs(ms - bestMillis) <= TIE_MILLIS) {
        ties++;
        // with peers this router's own order; else reservoir sampling, each kept with 1/ties
        if (peers ? tieOrders.prefers(context, c, best) : context.random().nextInt(ties) == 0) {
          best = c;
          bestMillis = ms;
        }
      }
    }
    if (peers) {
      // first: it notes a request's budget, which keeps the pile off for the requests without one
      int piled = pastSaturation.pick(context, onlyFresh, true);
      if (unique && OwnLoadUnderBacklog.applies(context, onlyFresh, saturationMillis)) {
        return leastOwnLoad(context, onlyFresh);
      }
      if (!unique && externality.queueing && scores != null) {
        queueing = Externalities.fleetRequestsInSystem(candidates);
      }
      return home(context, onlyFresh, unique, queueing, best, bestMillis, piled);
    }
    int piled = pastSaturation.pick(context, onlyFresh, false);
    int placed = piled >= 0 ? piled : newPrefix.place(context, deepest, onlyFresh);
    if (placed == NewPrefixPlacement.SHED) {
      return NewPrefixPlacement.shed(context, onlyFresh);
    }
    if (placed >= 0) {
      best = candidates.get(placed);
      bestMillis = scores != null ? scores[placed] : rankingMillis(context, best, false, queueing);
    } else {
      // the best, unless the copy it would make is not worth the holder's cache
      int holder = holders.holder(context, best, onlyFresh, limit);
      if (holder >= 0) {
        CandidateView h = candidates.get(holder);
        double ms = (scores != null ? scores[holder] : rankingMillis(context, h, false, queueing))
            + calibrationMillis(h);
        if (holders.keeps(ms, bestMillis)) {
          best = h;
          bestMillis = ms;
        }
      }
    }
    holders.note(context, best);
    return context.routedWithEstimate(best, bestMillis);
  }

  /**
   * Several routers: the prefix's home ({@link HomeBook}, else its plain {@link PrefixHome} home)
   * if it costs at most the limit once credited with the deepest copy this router knows of (the
   * peers send the prefix home, so home holds what they made of it; no credit where the index
   * follows KV events, which show home's copy as it is); else the highest-ranked candidate within
   * the limit (the best is one). On {@code unique} traffic the limit is narrower and every
   * candidate is ranked as {@link #uniqueRankingMillis} ranks it, and a request without a budget
   * goes to the best, home or not (the book still notes it). Past saturation the request goes
   * to {@code piled}, the index of the candidate that takes the excess ({@link PastSaturation}),
   * when that is not -1 (the book still notes the request).
   */
  private RoutingDecision home(RoutingContext context, boolean onlyFresh, boolean unique,
      double queueing, CandidateView best, double bestMillis, int piled) {
    Request request = context.request();
    long key = PrefixHome.key(request);
    double limit = PrefixHome.limitMillis(bestMillis, unique ? PrefixHome.UNIQUE_SLACK
        : PrefixHome.slack(book.share(key, context.nowNanos()), context.candidates().size()));
    String booked = book.home(key, request.prompt().blockCount(), context.candidates(),
        context.nowNanos(), !RoutingContexts.isExplanation(context));
    List<CandidateView> candidates = context.candidates();
    if (piled >= 0) {
      CandidateView c = candidates.get(piled);
      return context.routedWithEstimate(c, rankingMillis(context, c, unique, queueing));
    }
    if (unique && request.ttftBudget().isEmpty()) {
      // a prompt nobody else sends has no copy to agree on (class notes)
      return context.routedWithEstimate(best, bestMillis);
    }
    CandidateView home = null;
    CandidateView deepest = null;
    long homeRank = 0;
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      if (deepest == null || c.matchedBlocks() > deepest.matchedBlocks()) {
        deepest = c;
      }
      if (onlyFresh && c.telemetryStale()) {
        continue;
      }
      long rank = PrefixHome.rank(key, c.replicaId());
      if (booked != null ? c.replicaId().equals(booked) : (home == null || rank > homeRank)) {
        home = c;
        homeRank = rank;
      }
    }
    if (home != null) {
      double ms = rankingMillis(context, home, unique, queueing) + calibrationMillis(home);
      double credit = PrefixHome.peerCopyCreditMillis(request, home, deepest, externality.pollution,
          !unique && externality.queueing ? Externalities.requestsInSystem(home, queueing) : 0);
      if (ms - credit <= limit) {
        return context.routedWithEstimate(home, ms);
      }
    }
    CandidateView within = null;
    double withinMillis = 0;
    long withinRank = 0;
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      if (onlyFresh && c.telemetryStale()) {
        continue;
      }
      double ms = rankingMillis(context, c, unique, queueing) + calibrationMillis(c);
      long rank = PrefixHome.rank(key, c.replicaId());
      if (ms <= limit && (within == null || rank > withinRank)) {
        within = c;
        withinMillis = ms;
        withinRank = rank;
      }
    }
    return context.routedWithEstimate(within, withinMillis);
  }

  /**
   * Several routers on unique traffic, a request with a budget, every candidate backlogged: the
   * candidate with the fewest own in-flight prompt tokens, ties to the least ranking score
   * ({@link OwnLoadUnderBacklog}).
   */
  private RoutingDecision leastOwnLoad(RoutingContext context, boolean onlyFresh) {
    List<CandidateView> candidates = context.candidates();
    long least = OwnLoadUnderBacklog.leastTokens(candidates, onlyFresh);
    CandidateView best = null;
    double bestMillis = Double.POSITIVE_INFINITY;
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      if (onlyFresh && c.telemetryStale() || c.inFlightPromptTokens() != least) {
        continue;
      }
      double ms = uniqueRankingMillis(context, c) + calibrationMillis(c);
      if (best == null || ms < bestMillis) {
        best = c;
        bestMillis = ms;
      }
    }
    return context.routedWithEstimate(best, bestMillis);
  }

  /**
   * What the outcomes say {@code c}'s wait really is beyond the estimate
   * ({@link CandidateView#calibratedQueueMillis()} less {@link CandidateView#estimatedQueueMillis()}),
   * added to its ranking score (see the class notes).
   */
  static double calibrationMillis(CandidateView c) {
    return c.calibratedQueueMillis() - c.estimatedQueueMillis();
  }

  /** The ranking score of {@code c}: weighted terms plus externalities. */
  double rankingMillis(RoutingContext context, CandidateView c, double queueing) {
    double ms = weights.isEmpty() ? context.estimateMillis(c)
        : context.weightedEstimateMillis(c, weightOfTerm);
    if (externality.pollution) {
      ms += Externalities.pollutionMillis(context.request(), c);
    }
    if (externality.queueing) {
      ms += Externalities.queueingMillis(context.request(), c, queueing);
    }
    return ms;
  }

  /** {@link #uniqueRankingMillis} on {@code unique} traffic, else {@link #rankingMillis}. */
  private double rankingMillis(RoutingContext context, CandidateView c, boolean unique,
      double queueing) {
    return unique ? uniqueRankingMillis(context, c) : rankingMillis(context, c, queueing);
  }

  /**
   * The ranking score of {@code c} for several routers on unique traffic: the weighted terms with
   * the staleness risk at weight 1 or more; no externality (the blocks a placement evicts there
   * are seldom asked for again, and the queue it adds is read from a report every router shares).
   */
  private double uniqueRankingMillis(RoutingContext context, CandidateView c) {
    return uniqueWeightOfTerm == null ? context.estimateMillis(c)
        : context.weightedEstimateMillis(c, uniqueWeightOfTerm);
  }

  private RoutingDecision routePair(RoutingContext context) {
    return PairSelection.leastCost(context, c -> weights.isEmpty() ? context.estimateMillis(c)
        : context.weightedEstimateMillis(c, weightOfTerm), weight(CostTerm.TRANSFER));
  }

  private double weight(CostTerm term) {
    return weights.getOrDefault(term, 1.0);
  }

  private static boolean anyFresh(List<CandidateView> candidates) {
    for (int i = 0, n = candidates.size(); i < n; i++) {
      if (!candidates.get(i).telemetryStale()) {
        return true;
      }
    }
    return false;
  }
}
