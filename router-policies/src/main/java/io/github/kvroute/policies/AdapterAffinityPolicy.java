package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.ArrayList;
import java.util.List;

/**
 * LoRA adapter affinity for any policy: for a request that needs an adapter, narrow the candidates to
 * the replicas that hold it resident, when any does, and let the delegate policy choose among them.
 * Requests without an adapter, and requests whose adapter no candidate holds (every candidate would
 * have to load it), reach the delegate unchanged.
 *
 * <p>Sources: Dynamo's {@code LoraWorkerFilter} ({@code ai-dynamo/dynamo}
 * {@code lib/kv-router/src/scheduling/lora_filter.rs}: narrow the workers to those able to serve the
 * LoRA before scoring); llm-d's {@code lora-affinity-scorer} (score 1.0 when the adapter is active,
 * 0.8 when it can be loaded), whose strongest preference this filter makes absolute. The router has
 * already excluded replicas that can neither hold nor load the adapter; this filter prefers those that
 * need no load (in docs/cost-model.md, "An adapter load", an 800 ms load sends R1 from second place
 * to last).
 *
 * <p>The delegate sees a {@link RoutingContext} whose candidate lists are filtered; its views are the
 * router's own, so its decision is valid as is. Filtering allocates one list per adapter request when
 * it narrows; nothing otherwise.
 *
 * <p>Thread-safety: immutable; as thread-safe as the delegate (every built-in policy is).
 */
final class AdapterAffinityPolicy implements RoutingPolicy {
  static final String NAME = "adapter-affinity";

  private final RoutingPolicy delegate;

  AdapterAffinityPolicy(RoutingPolicy delegate) {
    this.delegate = delegate;
  }

  @Override
  public String name() {
    return NAME;
  }

  RoutingPolicy delegate() {
    return delegate;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    String adapter = context.request().adapter().orElse(null);
    if (adapter == null) {
      return delegate.route(context);
    }
    List<CandidateView> mixed = resident(context.candidates(), adapter);
    List<CandidateView> prefill = resident(context.prefillCandidates(), adapter);
    List<CandidateView> decode = resident(context.decodeCandidates(), adapter);
    if (mixed == context.candidates() && prefill == context.prefillCandidates()
        && decode == context.decodeCandidates()) {
      return delegate.route(context);
    }
    return delegate.route(context.withCandidates(mixed, prefill, decode));
  }

  @Override
  public void onOutcome(Outcome outcome) {
    delegate.onOutcome(outcome);
  }

  /** The candidates holding {@code adapter}, or {@code all} itself when none or every one does. */
  static List<CandidateView> resident(List<CandidateView> all, String adapter) {
    int holding = 0;
    for (CandidateView c : all) {
      holding += c.snapshot().residentAdapters().contains(adapter) ? 1 : 0;
    }
    if (holding == 0 || holding == all.size()) {
      return all;
    }
    List<CandidateView> narrowed = new ArrayList<>(holding);
    for (CandidateView c : all) {
      if (c.snapshot().residentAdapters().contains(adapter)) {
        narrowed.add(c);
      }
    }
    return narrowed;
  }
}
