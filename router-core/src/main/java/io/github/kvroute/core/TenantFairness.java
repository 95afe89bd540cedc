package io.github.kvroute.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-tenant fairness under pressure: weighted fair shares of the fleet's work, in the spirit of
 * llm-d's flow control (requests classified by tenant, a tenant's burst unable to starve the others)
 * but as an admission decision, since the router holds no queue.
 *
 * <h2>Design notes</h2>
 * Each tenant has two decayed rates (10 s memory) of estimated work in milliseconds per second: what
 * it offered and what was admitted. The fleet's capacity is what it is admitting while under
 * pressure: the sum of the admitted rates. That capacity is divided by water-filling over the
 * tenants' demands with their weights (max-min fairness, the fluid limit of weighted fair queuing): a
 * tenant that asks for less than its weighted share gets what it asks, and what it leaves is shared
 * among the others by weight. A tenant whose admitted rate exceeds its allocation by more than 10% is
 * refused until its rate decays to it; the retry-after is that decay's time. So a flooding tenant keeps
 * its fair share (never zero) and the others keep theirs.
 *
 * <p>Example: capacity 1,000 ms/s, weights 1, demands: chat-a 100, chat-b 150, bulk 2,000. Equal
 * shares would be 333 each; chat-a and chat-b need less, so bulk's allocation is 1,000 - 250 = 750.
 *
 * <p>Bounded: the {@value #MAX_TENANTS} most recently seen tenants are tracked (least recently seen
 * evicted); a request without a tenant counts as the tenant {@code ""}. Each check water-fills over the
 * tracked tenants: O(t log t).
 *
 * <p>Thread-safety: thread-safe; one lock, held for a check or a record.
 */
final class TenantFairness {
  static final int MAX_TENANTS = 1_024;
  private static final double TAU_SECONDS = 10.0;
  private static final double SLACK = 1.1;

  private final Map<String, Double> weights;
  @GuardedBy("this")
  private final LinkedHashMap<String, Meter> meters = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Meter> eldest) {
      return size() > MAX_TENANTS;
    }
  };

  private static final class Meter {
    final RateEstimator offered = new RateEstimator(TAU_SECONDS);
    final RateEstimator admitted = new RateEstimator(TAU_SECONDS);
    final double weight;

    Meter(double weight) {
      this.weight = weight;
    }
  }

  TenantFairness(Map<String, Double> weights) {
    this.weights = Map.copyOf(weights);
  }

  /**
   * Records {@code workMillis} offered by {@code tenant} now and returns the refusal detail when its
   * admitted rate is above its fair allocation, with the retry-after in milliseconds; null otherwise.
   */
  synchronized Refusal offer(String tenant, double workMillis, long nowNanos) {
    Meter m = meter(tenant);
    m.offered.record(nowNanos, workMillis);
    double capacity = 0;
    List<Meter> all = new ArrayList<>(meters.values());
    for (Meter x : all) {
      capacity += x.admitted.perSecond(nowNanos);
    }
    double allocation = allocation(m, all, capacity, nowNanos);
    double rate = m.admitted.perSecond(nowNanos);
    if (capacity <= 0 || rate <= SLACK * allocation) {
      return null;
    }
    // the admitted rate decays by e^(-t/tau): it reaches the allocation after tau x ln(rate/alloc)
    double retry = allocation <= 0 ? TAU_SECONDS * 1000
        : TAU_SECONDS * 1000 * Math.log(rate / allocation);
    return new Refusal(rate / capacity, allocation / capacity, retry);
  }

  /** A refusal: the tenant's share of admitted work, its fair share, and when to retry (ms). */
  record Refusal(double share, double fairShare, double retryAfterMillis) {}

  synchronized void admitted(String tenant, double workMillis, long nowNanos) {
    meter(tenant).admitted.record(nowNanos, workMillis);
  }

  @GuardedBy("this")
  private Meter meter(String tenant) {
    return meters.computeIfAbsent(tenant, t -> new Meter(weights.getOrDefault(t, 1.0)));
  }

  /** {@code m}'s max-min fair allocation of {@code capacity} by water-filling over the demands. */
  private static double allocation(Meter m, List<Meter> all, double capacity, long nowNanos) {
    all.sort(Comparator.comparingDouble(x -> x.offered.perSecond(nowNanos) / x.weight));
    double left = capacity;
    double weightLeft = 0;
    for (Meter x : all) {
      weightLeft += x.weight;
    }
    for (Meter x : all) {
      double fair = left * x.weight / weightLeft;
      double demand = x.offered.perSecond(nowNanos);
      double given = Math.min(demand, fair);
      if (x == m) {
        // the tenant being checked: whatever share is left by weight, even above its demand
        return demand < fair ? fair : given;
      }
      left -= given;
      weightLeft -= x.weight;
    }
    return 0;
  }
}
