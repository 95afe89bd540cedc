package io.github.kvroute.core;

import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingPolicy;
import java.util.function.ToDoubleFunction;

/**
 * A ranking of whole-request candidates by the router's standard terms, weighted, plus what the
 * placement costs other requests ({@link PlacementCosts}): the router evaluates it for every
 * candidate with the candidate's view, and hands the policy the scores in one array.
 *
 * <h2>Design notes</h2>
 * A policy that ranks candidate by candidate through {@link RoutingContext} pays, per candidate,
 * the calls and checks of {@link RoutingContext#weightedEstimateMillis}, {@link CostTerms#prefillMillis}
 * and the view's getters, on a view filled a whole pass earlier and since pushed out of the nearest
 * cache by 63 others (the ranking was a fifth of a 64-replica decision). A policy that
 * {@linkplain Ranked declares} this ranking instead has the router compute the request- and
 * candidate-dependent part right after each view's standard estimate, while the view is in the
 * cache ({@link #prepare}); only the queueing externality's fleet term, which needs every
 * candidate, waits for {@link #scores}, which then reads a few adjacent fields per view.
 *
 * <p>The scores are the same bits the per-candidate route gives: the weighted estimate is
 * {@link StandardEstimate#weightedMillis} itself, the externalities the same {@link PlacementCosts}
 * arithmetic, added in the same order ({@code weighted + pollution + queueing}). Outside the
 * router's own decision (a test's fixed context, a host's wrapper) {@link #scores} answers null and
 * the policy ranks candidate by candidate as before.
 *
 * <p>Thread-safety: immutable; {@link #prepare} and {@link #scores} work on the calling thread's
 * decision context.
 */
public final class StandardRanking {
  /** A policy whose ranking of whole-request candidates is a {@link StandardRanking}. */
  public interface Ranked {
    /** {@return the ranking; the same one for the policy's whole life} */
    StandardRanking standardRanking();
  }

  /** The weight of each term by its name; null ranks by the plain estimate. */
  private final ToDoubleFunction<String> weightOfTerm;
  private final boolean pollution;
  private final boolean queueing;

  /**
   * @param weightOfTerm the weight of a term by its name, as
   *     {@link RoutingContext#weightedEstimateMillis} takes it; null for the plain estimate
   *     ({@link RoutingContext#estimateMillis})
   * @param pollution whether the recompute of the blocks a placement evicts is added
   * @param queueing whether the delay a placement's prefill adds for later arrivals is added
   */
  public StandardRanking(ToDoubleFunction<String> weightOfTerm, boolean pollution,
      boolean queueing) {
    this.weightOfTerm = weightOfTerm;
    this.pollution = pollution;
    this.queueing = queueing;
  }

  /** {@code policy}'s ranking when it declares one, else null; a throwing declaration is none. */
  static StandardRanking of(RoutingPolicy policy) {
    if (!(policy instanceof Ranked ranked)) {
      return null;
    }
    try {
      return ranked.standardRanking();
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** The weights of this decision, resolved once ({@code s}'s cache); null for the plain estimate. */
  double[] weights(DecisionContext s) {
    return weightOfTerm == null ? null : s.termWeights(weightOfTerm);
  }

  /**
   * The part of {@code v}'s score that needs no other candidate, right after its standard estimate:
   * kept in the view with what the queueing externality will need.
   *
   * @param weights {@link #weights} of this decision
   */
  void prepare(Request request, MutableView v, double[] weights) {
    // v's terms were remembered for this request just now: what weightedMillis and
    // CostTerms.prefillMillis would answer from, without their checks that they were
    double ms = weights == null ? v.standardMillis : StandardEstimate.weightedRemembered(v, weights);
    if (pollution) {
      PromptKey prompt = request.prompt();
      ms += PlacementCosts.pollutionMillis(prompt.blockCount(), prompt.blockSizeTokens(),
          v.matchedBlocks, v.cachedBlocks, v.cacheCapacityBlocks, v.prefillMillisPerToken);
    }
    v.rankPartialMillis = ms;
    if (queueing) {
      v.rankUtilisation = PlacementCosts.utilisation(v.arrivalsPerSecond, v.meanRequestCostMillis);
      v.rankHasSteady = v.hasRecentTtft;
      v.rankSteady = v.rankHasSteady
          ? PlacementCosts.steadyRequestsInSystem(v.arrivalsPerSecond, v.recentTtftValue)
          : 0;
      v.rankQueued = PlacementCosts.queuedRequests(v.waitingRequests, v.dispatchedSinceSnapshot);
      v.rankPrefillMillis = v.standardFilled ? v.termMillis[StandardEstimate.PREFILL_INDEX]
          : PrefillTerm.prefillMillis(request.promptTokens(), v);
    }
  }

  /**
   * The score of each of {@code context}'s whole-request candidates, in the list's order, when
   * {@code context} is the router's decision in progress prepared with this ranking; else null
   * (then rank candidate by candidate). The array is the context's, valid during the decision; it
   * may be longer than the list.
   *
   * @param context the context the policy was handed
   * @return the scores, or null
   */
  public double[] scores(RoutingContext context) {
    if (!(context instanceof DecisionContext s) || s.ranking != this || !s.rankingPrepared) {
      return null;
    }
    DecisionContext.ViewList list = s.mixed;
    int n = list.size;
    MutableView[] items = list.items;
    double fleet = 0;
    if (queueing) {
      double sum = 0;
      for (int i = 0; i < n; i++) {
        sum += items[i].rankUtilisation;
      }
      fleet = PlacementCosts.fleetRequestsInSystem(sum, n);
    }
    double[] out = s.rankScores(n);
    for (int i = 0; i < n; i++) {
      MutableView v = items[i];
      double ms = v.rankPartialMillis;
      if (queueing) {
        double steady = v.rankHasSteady ? v.rankSteady : fleet;
        ms += Math.max(steady, v.rankQueued) * v.rankPrefillMillis;
      }
      out[i] = ms;
    }
    return out;
  }
}
