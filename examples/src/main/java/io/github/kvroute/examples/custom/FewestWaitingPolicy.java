package io.github.kvroute.examples.custom;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.List;

/**
 * An example of a host's own policy: route to the replica with the fewest requests waiting for
 * prefill, as the replica last reported them ({@code vllm:num_requests_waiting}) plus, optionally,
 * what this router sent it since that report. Ties are broken with the router's seeded randomness.
 *
 * <p>It is found by name through {@link java.util.ServiceLoader} because
 * {@link FewestWaitingPolicyProvider} is listed in this module's
 * {@code META-INF/services/io.github.kvroute.api.RoutingPolicyProvider}:
 *
 * <pre>{@code
 * Router router = Router.newBuilder().policy("fewest-waiting").build();
 * }</pre>
 *
 * <p>Thread-safety: immutable, as every policy must be ({@code route} is called concurrently).
 */
final class FewestWaitingPolicy implements RoutingPolicy {
  static final String NAME = "fewest-waiting";

  private final boolean countDispatched;

  FewestWaitingPolicy(boolean countDispatched) {
    this.countDispatched = countDispatched;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    List<CandidateView> candidates = context.candidates();
    if (candidates.isEmpty()) {
      return context.noCandidates(); // a value, never an exception
    }
    CandidateView best = null;
    long fewest = Long.MAX_VALUE;
    int ties = 0;
    for (CandidateView c : candidates) {
      long waiting = waiting(c);
      if (waiting < fewest) {
        best = c;
        fewest = waiting;
        ties = 1;
      } else if (waiting == fewest && context.random().nextInt(++ties) == 0) {
        best = c; // reservoir sampling: each tied replica kept with probability 1/ties
      }
    }
    // An empty cost lets the router fill in its own TTFT estimate (used by admission).
    return RoutingDecision.routed(best, CostBreakdown.empty());
  }

  long waiting(CandidateView c) {
    long reported = c.snapshot().waitingRequests().orElse(0);
    return countDispatched ? reported + c.dispatchedSinceSnapshot() : reported;
  }
}
