package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.PairSelection;
import java.util.List;

/**
 * Pair routing on a disaggregated fleet for policies that choose one replica at a time, as SGLang's
 * PD router does ({@code RoutingMode::PrefillDecode} with a prefill policy and a decode policy, each
 * falling back to the main policy): the prefill policy picks among the prefill replicas, then the
 * decode policy among the decode replicas. Each side runs on a context whose candidates are that
 * pool, so a single-replica rule applies unchanged.
 *
 * <p>One rule is added to the source's: the decode side sees only the decode replicas that can hold
 * the request's KV by the time the chosen prefill ends ({@link PairSelection#ready}); with none, the
 * request is rejected with a reason and a retry-after instead of prefilling KV with nowhere to go.
 *
 * <p>Thread-safety: stateless; as thread-safe as the policies it calls.
 */
final class PdPairs {
  private PdPairs() {}

  /** {@code prefill} on the prefill pool, then {@code decode} on the decode replicas ready for it. */
  static RoutingDecision split(RoutingContext context, RoutingPolicy prefill,
      RoutingPolicy decode) {
    RoutingDecision p = prefill.route(
        context.withCandidates(context.prefillCandidates(), List.of(), List.of()));
    if (!p.isRouted()) {
      return p;
    }
    CandidateView prefillView = find(context.prefillCandidates(), p);
    if (prefillView == null) {
      return p; // not one of the pool's: the router's validation contains it
    }
    List<CandidateView> ready =
        PairSelection.readyDecodes(context, context.estimateMillis(prefillView));
    if (ready.isEmpty()) {
      return PairSelection.noneReady(context);
    }
    RoutingDecision d = decode.route(context.withCandidates(ready, List.of(), List.of()));
    if (!d.isRouted()) {
      return d;
    }
    CandidateView decodeView = find(ready, d);
    return decodeView == null ? d : PairSelection.pair(context, prefillView, decodeView);
  }

  private static CandidateView find(List<CandidateView> views, RoutingDecision d) {
    for (CandidateView v : views) {
      if (v.epoch() == d.epoch() && v.replicaId().equals(d.replicaId())) {
        return v;
      }
    }
    return null;
  }
}
