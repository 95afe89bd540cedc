package io.github.kvroute.core;

import java.util.Optional;

/**
 * The identity of each standard cost term: the name it carries in a
 * {@link io.github.kvroute.api.CostBreakdown}, and the key a policy weights it by. {@link CostTerms}
 * builds the scorer of each constant with an exhaustive switch, so a new term cannot exist without
 * its scorer, and a policy that iterates {@link #values()} (hybrid-cost's {@code <term>_weight}
 * options) offers a weight for it without being edited.
 *
 * <p>Host-supplied scorers ({@code Router.Builder.costTerms}) have names of their own and no constant.
 *
 * <p>Immutable and thread-safe.
 */
public enum CostTerm {
  /** Waiting before prefill starts. */
  QUEUE("queue"),
  /** Recomputing the prompt the replica does not hold. */
  PREFILL("prefill"),
  /** Waiting on the running batch's decode steps. */
  STEP("step"),
  /** Moving state before the first token: adapter load and, for disaggregated decode, KV transfer. */
  TRANSFER("transfer"),
  /** Trusting a stale report. */
  RISK("risk"),
  /** Preemption when the request's KV would not fit. */
  KV_PRESSURE("kv_pressure");

  /** {@link #values()} without its copy per call: {@link #named} runs per term per candidate. */
  private static final CostTerm[] ALL = values();

  private final String termName;

  CostTerm(String termName) {
    this.termName = termName;
  }

  /** {@return the name in breakdowns and options, for example {@code kv_pressure}} */
  public String termName() {
    return termName;
  }

  /**
   * The standard term with {@code termName}, if any.
   *
   * @param termName a term's name in cost breakdowns, such as {@code queue}
   * @return the term; empty when no standard term has that name
   */
  public static Optional<CostTerm> named(String termName) {
    for (CostTerm t : ALL) {
      if (t.termName.equals(termName)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return termName;
  }
}
