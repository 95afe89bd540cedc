package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.core.RoutingContexts;

/**
 * One router's order of the replicas for breaking ties when other routers share the fleet:
 * rendezvous ranks of the replica ids under a salt drawn from the router's randomness, kept for a
 * period ({@code tie_order_ms}, {@value #DEFAULT_SECONDS} s by default) and then drawn again.
 *
 * <h2>Design notes</h2>
 * Routers that break ties the same way (or at random per request) send tied requests to the same
 * idle replicas within the second their reports are late; a router that keeps an order of its own
 * fills one idle replica before the next, and the routers, each with a different order, rarely
 * collide. Kept for the router's whole life (a period of 0) the order serves the most under KV
 * events, but while the fleet idles all of a router's ties go to one replica; redrawn each period,
 * no replica stays any router's first for long (docs/cost-model.md, "The Mooncake trace with
 * several routers").
 *
 * <p>The order is drawn at a period's first tie; two racing first draws each publish one and the
 * last stays. An explanation that finds none for its period draws one for itself and publishes
 * nothing, so explaining a request changes no later decision.
 *
 * <p>Thread-safety: thread-safe; the current order is an immutable value behind a volatile, read
 * without a monitor.
 */
final class TieOrders {
  /** How long a router keeps its order by default. */
  static final long DEFAULT_SECONDS = 60;

  /** One period's order: rendezvous ranks under {@code salt}. */
  private record Order(long salt, long period) {
    boolean prefers(CandidateView c, CandidateView than) {
      return PrefixHome.rank(salt, c.replicaId()) > PrefixHome.rank(salt, than.replicaId());
    }
  }

  /** The period in nanoseconds; {@link Long#MAX_VALUE}: the router's whole life. */
  private final long periodNanos;
  /** Null until the first tie with peers. */
  private volatile Order current;

  /** @param periodMillis how long an order is kept; 0: for the router's whole life */
  TieOrders(long periodMillis) {
    this.periodNanos = periodMillis == 0 ? Long.MAX_VALUE : periodMillis * 1_000_000L;
  }

  /** Whether this router's current order puts {@code c} before {@code than}. */
  boolean prefers(RoutingContext context, CandidateView c, CandidateView than) {
    long period = periodNanos == Long.MAX_VALUE ? 0 : context.nowNanos() / periodNanos;
    Order order = current;
    if (order == null || order.period() != period) {
      order = new Order(context.random().nextLong() | 1, period);
      if (!RoutingContexts.isExplanation(context)) {
        current = order;
      }
    }
    return order.prefers(c, than);
  }
}
