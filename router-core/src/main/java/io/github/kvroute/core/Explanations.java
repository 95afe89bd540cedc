package io.github.kvroute.core;

import io.github.kvroute.api.CandidateExplanation;
import io.github.kvroute.api.CandidateExplanation.Verdict;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.DecisionExplanation;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalDouble;

/**
 * Builds a {@link DecisionExplanation} from a decision context after the policy and admission have
 * spoken, while its views are still filled: every member of the fleet, as the pipeline saw it. Only
 * called when a host asks; the ordinary route never comes here.
 */
final class Explanations {
  private Explanations() {}

  static DecisionExplanation of(DecisionContext s, RoutingDecision decision,
      ReplicaEntry[] members) {
    Request request = s.request();
    List<CandidateExplanation> out = new ArrayList<>(members.length);
    for (ReplicaEntry entry : members) {
      MutableView v = viewOf(s, entry);
      out.add(v == null ? ineligible(entry, request) : candidate(s, v, decision));
    }
    out.sort(Comparator.comparing(CandidateExplanation::replicaId));
    return DecisionExplanation.of(decision, out);
  }

  private static MutableView viewOf(DecisionContext s, ReplicaEntry entry) {
    for (int i = 0; i < s.viewCount; i++) {
      if (s.views[i].entry == entry) {
        return s.views[i];
      }
    }
    return null;
  }

  private static CandidateExplanation candidate(DecisionContext s, MutableView v,
      RoutingDecision d) {
    CostBreakdown estimate = s.estimate(v);
    String id = v.entry.id;
    if (v.avoided) {
      return new CandidateExplanation(id, v.epoch, Verdict.INELIGIBLE,
          "holds the request's earlier attempt, still in flight: a later attempt goes elsewhere",
          CostBreakdown.empty(), 0, OptionalDouble.empty());
    }
    if (v.standardMillis == Double.POSITIVE_INFINITY) {
      return new CandidateExplanation(id, v.epoch, Verdict.VETOED, vetoReason(estimate), estimate,
          v.matchedTokens, OptionalDouble.empty());
    }
    boolean decodeHere = d.isRouted() && d.replicaId().equals(id) && d.epoch() == v.epoch;
    boolean prefillHere = d.isRouted() && d.prefillReplicaId().filter(id::equals).isPresent()
        && d.prefillEpoch() == v.epoch;
    return new CandidateExplanation(id, v.epoch,
        decodeHere || prefillHere ? Verdict.CHOSEN : Verdict.CANDIDATE, "", estimate,
        v.matchedTokens, decodeHere ? d.score() : OptionalDouble.empty());
  }

  /** A breakdown shows a vetoing term as the largest finite cost. */
  private static String vetoReason(CostBreakdown estimate) {
    StringBuilder terms = new StringBuilder();
    for (int i = 0; i < estimate.size(); i++) {
      if (estimate.millis(i) == Double.MAX_VALUE) {
        terms.append(terms.length() == 0 ? "" : ", ").append(estimate.term(i));
      }
    }
    return terms.length() == 0 ? "vetoed: the terms' sum is beyond a double"
        : "vetoed by " + terms;
  }

  private static CandidateExplanation ineligible(ReplicaEntry entry, Request request) {
    ReplicaSnapshot snap = entry.snapshot;
    Eligibility e = Eligibility.of(entry, snap, request);
    String reason = e == Eligibility.ELIGIBLE ? "breaker " + entry.breaker.state()
        : e.describe(snap, request);
    return new CandidateExplanation(entry.id, entry.epoch, Verdict.INELIGIBLE,
        reason, CostBreakdown.empty(), 0, OptionalDouble.empty());
  }
}
