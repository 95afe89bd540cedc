package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.PairSelection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sends each request to the next eligible replica in turn: the default of every generic load balancer
 * and the baseline everywhere. It balances request <em>counts</em>, the wrong quantity
 * twice over: LLM requests differ ~100x in cost, and spreading them scatters shared prefixes so that
 * every replica recomputes every prefix.
 *
 * <p>Disaggregated fleets: as SGLang's PD router, this rule on each pool ({@link PdPairs}).
 *
 * <p>Thread-safety: atomic counters (one per pool on a disaggregated fleet).
 */
final class RoundRobinPolicy implements RoutingPolicy {
  static final String NAME = "round-robin";

  private final AtomicLong next = new AtomicLong();
  /**
   * A turn of its own for each pool of a disaggregated fleet, as SGLang's PD router builds a policy
   * per pool (one shared counter would step prefill and decode in lockstep); null inside a pool.
   */
  private final RoundRobinPolicy prefillPool;
  private final RoundRobinPolicy decodePool;

  RoundRobinPolicy() {
    this(true);
  }

  private RoundRobinPolicy(boolean withPools) {
    prefillPool = withPools ? new RoundRobinPolicy(false) : null;
    decodePool = withPools ? new RoundRobinPolicy(false) : null;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    List<CandidateView> candidates = context.candidates();
    if (candidates.isEmpty()) {
      return PairSelection.isDisaggregated(context) && prefillPool != null
          ? PdPairs.split(context, prefillPool, decodePool) : context.noCandidates();
    }
    int i = (int) Math.floorMod(next.getAndIncrement(), (long) candidates.size());
    return RoutingDecision.routed(candidates.get(i), CostBreakdown.empty());
  }
}
