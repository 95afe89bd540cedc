package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Choosing a (prefill, decode) pair on a disaggregated fleet: the rules every pair-choosing policy
 * shares.
 *
 * <h2>Design notes</h2>
 * The time to first token of a pair is the prefill replica's predicted TTFT (its queue, the missing
 * prefix's prefill, the risk of stale telemetry) plus the move of the prompt's KV over the pair's link
 * ({@link RoutingContext#kvTransferMillis}). The two sides are not independent: the prefill replica
 * with the shortest queue may have a poor link to every decode replica with room, and a pair with a
 * slightly longer prefill and a same-node link then answers sooner (DistServe's placement argument).
 * So the pair, not each side, is what is ranked: O(prefill x decode) candidates, a few hundred at most
 * for the fleets one router serves.
 *
 * <p>A pair is <em>ready</em> only if its decode replica can hold the request's KV (prompt plus
 * planned output, after the router's in-flight reservations there) by the time the prefill ends
 * ({@link RoutingContext#decodeWaitMillis} at most the prefill's predicted TTFT). Admitting into
 * prefill with no decode capacity ready produces KV with nowhere to go: it holds the prefill replica's
 * memory, or is dropped and recomputed. When no pair is ready the request is rejected as
 * {@link RejectReason#OVERLOADED} with a retry-after from the same estimates: how much longer the
 * soonest decode replica needs than the soonest prefill takes.
 *
 * <p>Thread-safety: stateless.
 */
public final class PairSelection {
  private static final double TIE_MILLIS = 1e-3;
  /** The cost term under which a pair's decision carries its KV move. */
  public static final String TRANSFER_TERM = "kv-transfer";

  private PairSelection() {}

  /**
   * Whether {@code context} has a disaggregated fleet to choose from: prefill and decode pools.
   *
   * @param context the routing context
   * @return whether both the prefill and the decode candidates are non-empty
   */
  public static boolean isDisaggregated(RoutingContext context) {
    return !context.prefillCandidates().isEmpty() && !context.decodeCandidates().isEmpty();
  }

  /**
   * Whether {@code decode} can hold the request's KV by the time a prefill of {@code prefillMillis}
   * ends.
   *
   * @param context the routing context
   * @param decode the decode replica
   * @param prefillMillis the prefill's predicted time, in milliseconds
   * @return whether the decode wait is at most {@code prefillMillis}
   */
  public static boolean ready(RoutingContext context, CandidateView decode, double prefillMillis) {
    return context.decodeWaitMillis(decode) <= prefillMillis;
  }

  /**
   * The decode replicas ready by the end of a prefill of {@code prefillMillis}, in their order.
   *
   * @param context the routing context
   * @param prefillMillis the prefill's predicted time, in milliseconds
   * @return the ready decode candidates; possibly empty
   */
  public static List<CandidateView> readyDecodes(RoutingContext context, double prefillMillis) {
    List<CandidateView> out = new ArrayList<>(context.decodeCandidates().size());
    for (CandidateView d : context.decodeCandidates()) {
      if (ready(context, d, prefillMillis)) {
        out.add(d);
      }
    }
    return out;
  }

  /**
   * The ready pair of least {@code prefillScore(prefill) + transferWeight x transfer(prefill,
   * decode)}; ties within a microsecond go to the decode replica with fewer in-flight requests, then
   * to the router's seeded randomness. The decision's cost is the pair's predicted TTFT (prefill's
   * estimate plus the unweighted move), its score the ranked sum. No ready pair: {@link #noneReady}.
   *
   * @param context the routing context, disaggregated
   * @param prefillScore the policy's ranking of a prefill replica, in milliseconds
   * @param transferWeight the weight of the KV move in the ranking; 1 ranks by predicted TTFT
   * @return the routed pair, or the {@link #noneReady} rejection
   */
  public static RoutingDecision leastCost(RoutingContext context,
      ToDoubleFunction<CandidateView> prefillScore, double transferWeight) {
    CandidateView bestP = null;
    CandidateView bestD = null;
    double bestScore = Double.POSITIVE_INFINITY;
    int ties = 0;
    for (CandidateView p : context.prefillCandidates()) {
      double prefillMillis = context.estimateMillis(p);
      double ps = prefillScore.applyAsDouble(p);
      for (CandidateView d : context.decodeCandidates()) {
        if (!ready(context, d, prefillMillis)) {
          continue;
        }
        double score = ps + transferWeight * context.kvTransferMillis(p, d);
        if (bestP == null || score < bestScore - TIE_MILLIS) {
          bestP = p;
          bestD = d;
          bestScore = score;
          ties = 1;
        } else if (Math.abs(score - bestScore) <= TIE_MILLIS) {
          if (d.inFlightRequests() < bestD.inFlightRequests()) {
            bestP = p;
            bestD = d;
            bestScore = Math.min(score, bestScore);
            ties = 1;
          } else if (d.inFlightRequests() == bestD.inFlightRequests()
              && context.random().nextInt(++ties) == 0) {
            bestP = p;
            bestD = d;
          }
        }
      }
    }
    if (bestP == null) {
      return noneReady(context);
    }
    return pair(context, bestP, bestD).withScore(bestScore);
  }

  /**
   * The routed decision for {@code prefill} and {@code decode}, its cost the prefill's estimate term
   * by term plus the move ({@value #TRANSFER_TERM}).
   *
   * @param context the routing context
   * @param prefill the prefill replica
   * @param decode the decode replica
   * @return the routed decision
   */
  public static RoutingDecision pair(RoutingContext context, CandidateView prefill,
      CandidateView decode) {
    CostBreakdown prefillCost = context.estimate(prefill);
    CostBreakdown.Builder b = CostBreakdown.newBuilder();
    for (int i = 0; i < prefillCost.size(); i++) {
      b.add(prefillCost.term(i), prefillCost.millis(i));
    }
    b.add(TRANSFER_TERM, context.kvTransferMillis(prefill, decode));
    return RoutingDecision.routedPair(prefill, decode, b.build());
  }

  /**
   * The rejection when no decode replica will be ready when any prefill ends, with a retry-after:
   * the soonest decode wait beyond the soonest prefill, or none when no decode replica will ever fit.
   *
   * @param context the routing context, disaggregated
   * @return the {@code OVERLOADED} rejection
   */
  public static RoutingDecision noneReady(RoutingContext context) {
    double soonestPrefill = Double.POSITIVE_INFINITY;
    for (CandidateView p : context.prefillCandidates()) {
      soonestPrefill = Math.min(soonestPrefill, context.estimateMillis(p));
    }
    double soonestDecode = Double.POSITIVE_INFINITY;
    for (CandidateView d : context.decodeCandidates()) {
      soonestDecode = Math.min(soonestDecode, context.decodeWaitMillis(d));
    }
    Duration retry = Double.isInfinite(soonestDecode) || Double.isInfinite(soonestPrefill) ? null
        : Duration.ofMillis((long) Math.ceil(Math.max(1, soonestDecode - soonestPrefill)));
    return RoutingDecision.rejected(RejectReason.OVERLOADED, String.format(
        "no decode replica can hold %d KV tokens by the time prefill ends (soonest in %s)",
        DecodeFit.neededTokens(context.request()),
        Double.isInfinite(soonestDecode) ? "never" : String.format("%.0f ms", soonestDecode)),
        retry);
  }
}
