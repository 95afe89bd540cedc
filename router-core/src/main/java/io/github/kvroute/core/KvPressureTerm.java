package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.Scorer;

/**
 * A request whose KV would not fit in the replica's free cache (after this router's sends since the
 * report) makes the engine preempt: someone's prefill is thrown away and recomputed. The penalty is the
 * recompute of this request's whole prompt on that replica, the work a preemption wastes.
 */
final class KvPressureTerm implements Scorer {
  static final KvPressureTerm INSTANCE = new KvPressureTerm();

  private KvPressureTerm() {}

  @Override
  public String name() {
    return CostTerm.KV_PRESSURE.termName();
  }

  @Override
  public double costMillis(Request request, CandidateView candidate) {
    // the router's own views hand over the primitive: this runs for every candidate of every decision
    long free = candidate instanceof MutableView v ? v.freeKvTokens
        : candidate.freeKvTokens().orElse(-1);
    if (free < 0) {
      return 0;
    }
    long needed = (long) request.promptTokens() - candidate.matchedTokens()
        + request.plannedOutputTokens();
    if (needed <= free) {
      return 0;
    }
    return PrefillTerm.computeMillis(request.promptTokens(), candidate);
  }
}
