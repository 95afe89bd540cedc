package io.github.kvroute.core;

import com.google.common.collect.ImmutableList;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Scorer;
import java.util.List;

/**
 * The cost terms of the router's estimate, each a {@link Scorer} in milliseconds of estimated time
 * to first token (formulas and worked examples: docs/cost-model.md):
 *
 * <pre>
 * cost(r, R) = queue(R)            wait before r starts prefill on R
 *            + prefill(r, R)       overhead + missing_tokens(r, R) x ms_per_token(R)
 *            + step(R)             1.5 decode steps of R's running batch before the first token
 *            + transfer(r, R)      adapter load if not resident; KV transfer for PD
 *            + risk(R)             penalty for stale or uncertain telemetry
 *            + kv_pressure(r, R)   preemption penalty when r's KV would not fit
 * </pre>
 *
 * <p>Each has a {@link CostTerm} identity; {@link #standard} holds one scorer per constant.
 *
 * <p>All terms are stateless and thread-safe.
 */
public final class CostTerms {
  private CostTerms() {}

  /** {@return the queue term: the estimated wait before prefill starts} */
  public static Scorer queue() {
    return QueueTerm.INSTANCE;
  }

  /** {@return the prefill term: recomputing the prompt tokens not cached} */
  public static Scorer prefill() {
    return PrefillTerm.INSTANCE;
  }

  /** {@return the step term: waiting on the running batch, 1.5 reported decode steps} */
  public static Scorer step() {
    return StepTerm.INSTANCE;
  }

  /** {@return the transfer term: adapter load and KV transfer} */
  public static Scorer transfer() {
    return TransferTerm.INSTANCE;
  }

  /**
   * Staleness risk, weighted by {@code model}'s asymmetric factors.
   *
   * @param model the cost model whose stale threshold, penalty and risk factors apply
   * @return the scorer
   */
  public static Scorer risk(CostModel model) {
    return new StalenessRiskTerm(model);
  }

  /** {@return preemption penalty under KV pressure} */
  public static Scorer kvPressure() {
    return KvPressureTerm.INSTANCE;
  }

  /**
   * The prefill term's value: {@code overhead + missing x ms_per_token}, the missing tokens being the
   * prompt less the matched prefix discounted by the replica's cache reliability.
   *
   * @param request the request
   * @param candidate the replica
   * @return milliseconds
   */
  public static double prefillMillis(io.github.kvroute.api.Request request, CandidateView candidate) {
    // the router's own view, filled for this request: the value its estimate's prefill term took
    if (candidate instanceof MutableView v && v.standardFilled && v.filledFor(request)) {
      return v.termMillis[StandardEstimate.PREFILL_INDEX];
    }
    return PrefillTerm.prefillMillis(request.promptTokens(), candidate);
  }

  /**
   * The scorer of {@code term} under {@code model}.
   *
   * @param term the standard term
   * @param model the cost model (only the risk term reads it)
   * @return the scorer
   */
  public static Scorer of(CostTerm term, CostModel model) {
    return switch (term) {
      case QUEUE -> queue();
      case PREFILL -> prefill();
      case STEP -> step();
      case TRANSFER -> transfer();
      case RISK -> risk(model);
      case KV_PRESSURE -> kvPressure();
    };
  }

  /**
   * One scorer per {@link CostTerm}, in the order above.
   *
   * @param model the cost model the risk term reads
   * @return the scorers, unmodifiable
   */
  public static List<Scorer> standard(CostModel model) {
    ImmutableList.Builder<Scorer> terms = ImmutableList.builder();
    for (CostTerm term : CostTerm.values()) {
      terms.add(of(term, model));
    }
    return terms.build();
  }
}
