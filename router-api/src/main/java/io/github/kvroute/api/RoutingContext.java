package io.github.kvroute.api;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Everything a policy may look at for one decision: the request, the eligible candidates (already
 * filtered for state, epoch, breaker, model, version and adapter, and already matched against the prefix
 * index), the injected randomness and time, and the router's own cost estimate.
 *
 * <p>Thread-safety: valid only during the {@code route} call, on the calling thread.
 */
public interface RoutingContext {

  /** {@return the request being routed} */
  Request request();

  /**
   * {@return replicas that can serve the whole request ({@link ReplicaRole#MIXED}), in a stable
   * order (by replica id)} Empty when none is eligible: a policy then returns a
   * {@link RejectReason#NO_CANDIDATES} rejection, never throws.
   */
  List<CandidateView> candidates();

  /** {@return eligible {@link ReplicaRole#PREFILL} replicas, for disaggregated placement} */
  List<CandidateView> prefillCandidates();

  /** {@return eligible {@link ReplicaRole#DECODE} replicas, for disaggregated placement} */
  List<CandidateView> decodeCandidates();

  /**
   * {@return the router's injected randomness; use it (not {@code Math.random}) so decisions
   * reproduce}
   */
  RandomSource random();

  /** {@return the current time in nanoseconds, on the router's {@link Ticker}} */
  long nowNanos();

  /**
   * The router's cost model for this request on {@code candidate}, term by term, in milliseconds.
   *
   * @param candidate one of this context's candidates
   * @return the breakdown; its total is the predicted TTFT there
   */
  CostBreakdown estimate(CandidateView candidate);

  /**
   * Routes the whole request to {@code chosen} at the router's estimate: the same decision as
   * {@code RoutingDecision.routed(chosen, estimate(chosen), score)}. The router's implementation
   * builds no breakdown for it (the decision keeps the estimate's values, see
   * {@link RoutingDecision#routed(CandidateView, CostBreakdown, double[], double)}), for policies that
   * route at the estimate on every request.
   *
   * @param chosen one of this context's candidates
   * @param score the policy's ranking score; finite
   * @return a routed decision whose cost is the estimate of {@code chosen}
   * @throws IllegalArgumentException if {@code score} is NaN or infinite
   */
  default RoutingDecision routedWithEstimate(CandidateView chosen, double score) {
    return RoutingDecision.routed(chosen, estimate(chosen), score);
  }

  /**
   * The total of {@link #estimate}: the same number, without building the breakdown (the router's
   * implementation allocates nothing), for policies that rank many candidates.
   *
   * @param candidate one of this context's candidates
   * @return the predicted TTFT in milliseconds
   */
  default double estimateMillis(CandidateView candidate) {
    return estimate(candidate).totalMillis();
  }

  /**
   * A weighted total of {@link #estimate}: each term's milliseconds times {@code weightOfTerm} of the
   * term's name (as {@link CostBreakdown#term} gives it), without building the breakdown in the
   * router's implementation, for policies that rank many candidates by weighted terms. The weight
   * function must not throw, and must give a term the same weight throughout a decision: it is
   * called at most once per term, and the router's implementation reuses the answers it gave earlier
   * in the same decision (so a policy that ranks every candidate with one function has it asked once
   * per term per decision). A weight of 1 everywhere gives {@link #estimateMillis}.
   *
   * @param candidate one of this context's candidates
   * @param weightOfTerm the weight of a term, by the term's name (1 for "as estimated")
   * @return the weighted sum in milliseconds: a ranking score, not a predicted TTFT
   */
  default double weightedEstimateMillis(CandidateView candidate,
      ToDoubleFunction<String> weightOfTerm) {
    CostBreakdown b = estimate(candidate);
    double total = 0;
    for (int i = 0; i < b.size(); i++) {
      total += weightOfTerm.applyAsDouble(b.term(i)) * b.millis(i);
    }
    return total;
  }

  /**
   * Milliseconds to move the request's KV from {@code prefill} to {@code decode} over that pair's
   * link, when the host described where replicas sit; by default (and without such a description)
   * the decode view's own {@link CandidateView#kvTransferMillis()}, the same for every pair.
   *
   * @param prefill the prefill replica
   * @param decode the decode replica
   * @return milliseconds, non-negative
   */
  default double kvTransferMillis(CandidateView prefill, CandidateView decode) {
    return decode.kvTransferMillis();
  }

  /**
   * Milliseconds until {@code decode} can hold the request's KV (prompt plus planned output) in its
   * free KV after the router's in-flight reservations there: 0 when it fits now or the replica does
   * not report its KV, {@code +Infinity} when nothing says it ever will. A pair whose decode wait
   * exceeds its prefill's predicted time is not ready: its prefill would produce KV with nowhere to
   * go. This default sees no rate of freeing, so a request that does not fit now never does.
   *
   * @param decode the decode replica
   * @return milliseconds: 0, a finite wait, or {@code +Infinity}
   */
  default double decodeWaitMillis(CandidateView decode) {
    if (decode.freeKvTokens().isEmpty()) {
      return 0;
    }
    long need = (long) request().promptTokens() + request().plannedOutputTokens();
    return need <= decode.freeKvTokens().getAsLong() ? 0 : Double.POSITIVE_INFINITY;
  }

  /**
   * {@return how many other routers send to the same fleet, as a multiple of this router's own
   * traffic: the count the host configured ({@code peerRouters}), or else measured from the
   * replicas' received-request counts; 0 for a router alone (and by default)} Routers that share a
   * fleet but not their prefix indexes place a new prefix independently unless their policies agree
   * on where it goes.
   */
  default double peerRouters() {
    return 0;
  }

  /**
   * This context with narrowed candidate lists and everything else unchanged, for a policy that
   * filters candidates in front of another (the router still checks that the decision names one of its
   * own candidates). The lists must be taken from this context's.
   *
   * @param candidates the whole-request candidates to keep
   * @param prefillCandidates the prefill candidates to keep
   * @param decodeCandidates the decode candidates to keep
   * @return the narrowed context
   */
  default RoutingContext withCandidates(List<CandidateView> candidates,
      List<CandidateView> prefillCandidates, List<CandidateView> decodeCandidates) {
    return new NarrowedRoutingContext(this, candidates, prefillCandidates, decodeCandidates);
  }

  /** {@return a rejection for an empty candidate list, with the standard wording} */
  default RoutingDecision noCandidates() {
    return RoutingDecision.rejected(RejectReason.NO_CANDIDATES,
        "no eligible replica for model " + request().model(), null);
  }
}
