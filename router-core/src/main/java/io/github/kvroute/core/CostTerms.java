package io.github.kvroute.core;

import com.google.common.collect.ImmutableList;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Scorer;
import java.util.List;

/**
 * The cost terms of seed 000's hybrid score, each a {@link Scorer} in milliseconds of estimated time to
 * first token:
 *
 * <pre>
 * cost(r, R) = queue(R)            wait before r starts prefill on R
 *            + prefill(r, R)       overhead + missing_tokens(r, R) x ms_per_token(R)
 *            + step(R)             1.5 decode steps of R's running batch before the first token
 *            + load(r, R)          adapter load if not resident; KV transfer for PD
 *            + risk(R)             penalty for stale or uncertain telemetry
 *            + kv(r, R)            preemption penalty when r's KV would not fit
 * </pre>
 *
 * <p>All terms are stateless and thread-safe.
 */
public final class CostTerms {
  private CostTerms() {}

  /** Estimated queue wait. */
  public static Scorer queue() {
    return QueueTerm.INSTANCE;
  }

  /** Recompute of the missing prefix. */
  public static Scorer prefill() {
    return PrefillTerm.INSTANCE;
  }

  /** Waiting on the running batch: 1.5 reported decode steps. */
  public static Scorer step() {
    return StepTerm.INSTANCE;
  }

  /** Adapter load and KV transfer. */
  public static Scorer load() {
    return LoadTerm.INSTANCE;
  }

  /** Staleness risk, weighted by {@code model}'s asymmetric factors. */
  public static Scorer risk(CostModel model) {
    return new StalenessRiskTerm(model);
  }

  /** Preemption penalty under KV pressure. */
  public static Scorer kvPressure() {
    return KvPressureTerm.INSTANCE;
  }

  /**
   * The prefill term's value: {@code overhead + missing x ms_per_token}, the missing tokens being the
   * prompt less the matched prefix discounted by the replica's cache reliability.
   */
  public static double prefillMillis(io.github.kvroute.api.Request request, CandidateView candidate) {
    return PrefillTerm.prefillMillis(request.promptTokens(), candidate);
  }

  /** All six terms, in the order above. */
  public static List<Scorer> standard(CostModel model) {
    return ImmutableList.of(queue(), prefill(), step(), load(), risk(model), kvPressure());
  }
}
