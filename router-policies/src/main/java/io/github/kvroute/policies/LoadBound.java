package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import java.util.List;

/**
 * How many of this router's requests a replica may have in flight and still be given another, for
 * a router alone: {@code factor} times the mean over the candidates, counting the request at hand
 * (the bound of consistent hashing with bounded loads, Mirrokni, Thorup and Zadimoghaddam, SODA
 * 2018, with requests in flight as the load).
 *
 * <h2>Design notes</h2>
 * A hot prefix's holder looks cheap to every request that finds the prefix there: each one
 * prefills only its own question, and the queue estimate counts prefill work. What the holder
 * carries is requests: each decodes there, and the batch it joins slows every step, so its real
 * wait grows long before its predicted one does. On {@code hot-prefix} (one prefix growing to 70%
 * of the traffic, bursts at three times the rate; seed 1, 1.5x its rate, no deadlines) hybrid-cost
 * kept the prefix on one replica until that replica's queue had passed the objective (requests
 * predicted to wait 200-400 ms waited a second on average), then moved it, and the same again on the
 * second holder; Preble's rule, which rebalances once a replica's load reaches 1.5 times the
 * lightest one's, had the prefix on two replicas from its twentieth request and on all three
 * later, and half as many requests late. The bound asks the same of every placement with a count
 * the router knows exactly (its own sends not yet completed, {@link CandidateView#inFlightRequests()}):
 * a replica past {@code factor} times the mean that waits is skipped, and the ranking chooses
 * among the rest, so the holder's next request copies the prefix to the cheapest replica under the
 * bound, and later requests choose between the holders by their costs.
 *
 * <p>The factor, {@value #DEFAULT_FACTOR}, was chosen from a sweep (capacity_rps, seeds 1-10,
 * one router, docs/cost-model.md "Bounded load"): 1.5 gained most on {@code hot-prefix} and lost a
 * tenth of {@code multi-tenant}, where a large tenant's home rightly carries more than its share;
 * {@value #DEFAULT_FACTOR} kept two thirds of the gain and cost the other scenarios nothing
 * measurable (the sweep ran before the wait condition below).
 * With other routers the count is this router's share alone, and homes already carry bounded loads
 * ({@link BoundedHomes}); the bound applies to a router alone.
 *
 * <p>A replica past the bound is skipped only while it waits: its calibrated queue (the estimate
 * times what outcomes taught about its real waits) is over {@value #MIN_WAIT_MILLIS} ms. A replica
 * that carries more than twice its share without a queue serves it well, and moving its requests
 * costs their prefixes: without the condition the bound broke recovery from a crash under KV
 * events ({@code replica-crash} with {@code vllm-kv-events}, seeds 1-5: SLO attainment at least
 * 0.999 on every seed without the bound, 0.67 / 0.75 / 1.00 / 0.55 / 0.74 with it), where three
 * survivors carrying a fourth's tenants each hold more than their share and the tenants moved off
 * their homes evicted the prefixes the survivors kept warm, which the events then showed gone.
 *
 * <p>The mean is taken over the candidates the policy may choose (the fresh ones when stale ones
 * are excluded), so at least one of them, the least loaded, is always within the bound.
 *
 * <p>Thread-safety: stateless.
 */
final class LoadBound {
  /** The default factor (option {@code load_bound}). */
  static final double DEFAULT_FACTOR = 2;
  /** A replica past the bound keeps its traffic while its calibrated wait is at most this. */
  static final double MIN_WAIT_MILLIS = 100;

  private LoadBound() {}

  /**
   * The most requests in flight a candidate may have and still take this one: the ceiling of
   * {@code factor} times the candidates' mean in flight, the request at hand counted; infinite when
   * {@code factor} is 0 (off).
   *
   * @param candidates the candidates
   * @param onlyFresh whether candidates with stale telemetry are left out (of the mean too)
   * @param factor 0 (off) or at least 1
   */
  static double limit(List<CandidateView> candidates, boolean onlyFresh, double factor) {
    if (factor <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    long total = 1;
    int eligible = 0;
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      if (!(onlyFresh && c.telemetryStale())) {
        total += c.inFlightRequests();
        eligible++;
      }
    }
    return eligible == 0 ? Double.POSITIVE_INFINITY : Math.ceil(factor * total / eligible);
  }

  /**
   * {@return whether {@code c} is past {@code limit} once given this request and waits more than
   * {@value #MIN_WAIT_MILLIS} ms by its calibrated queue}
   */
  static boolean over(CandidateView c, double limit) {
    return c.inFlightRequests() + 1 > limit && c.calibratedQueueMillis() > MIN_WAIT_MILLIS;
  }
}
