package io.github.kvroute.testkit;

import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * What {@link RouterStress}'s threads did, counted on the host's side of the router, and what its
 * listener heard: the books the router's own {@code stats()} must agree with at quiescence. Also the
 * violations found in the current phase (the first {@value #KEPT_VIOLATIONS} kept verbatim, all counted).
 *
 * <p>Thread-safety: thread-safe (adders and concurrent queues).
 */
final class StressBooks implements RouterListener {
  static final int KEPT_VIOLATIONS = 200;

  final LongAdder offered = new LongAdder();
  final LongAdder routed = new LongAdder();
  final LongAdder failed = new LongAdder();
  final Map<RejectReason, LongAdder> rejected = adders(RejectReason.class);
  final Map<UpdateResult, LongAdder> outcomes = adders(UpdateResult.class);
  final Map<UpdateResult, LongAdder> snapshots = adders(UpdateResult.class);
  final Map<UpdateResult, LongAdder> kvEvents = adders(UpdateResult.class);
  final LongAdder kvEventKeys = new LongAdder();
  final LongAdder churn = new LongAdder();
  final LongAccumulator maxRouteNanos = new LongAccumulator(Math::max, 0);

  // what the listener heard
  final LongAdder decisionsHeard = new LongAdder();
  final LongAdder orphanedHeard = new LongAdder();
  final LongAdder expiredHeard = new LongAdder();
  final LongAdder pluginFailuresHeard = new LongAdder();

  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  private final AtomicInteger violationCount = new AtomicInteger();

  void violation(String what) {
    if (violationCount.getAndIncrement() < KEPT_VIOLATIONS) {
      violations.add(what);
    }
  }

  /** A call that threw: no call in the stress has a documented exception for its inputs. */
  void escaped(String call, Object argument, Throwable error) {
    violation(call + " threw " + error + " for " + argument);
  }

  /**
   * The violations found since the last call, oldest first (the first {@value #KEPT_VIOLATIONS}
   * verbatim, then a line counting the rest), and starts afresh. Call at quiescence only.
   */
  List<String> takeViolations() {
    List<String> out = new ArrayList<>(violations);
    violations.clear();
    int more = violationCount.getAndSet(0) - out.size();
    if (more > 0) {
      out.add("... and " + more + " more");
    }
    return out;
  }

  static long sum(Map<?, LongAdder> counts) {
    return counts.values().stream().mapToLong(LongAdder::sum).sum();
  }

  static <E extends Enum<E>> Map<E, Long> sums(Map<E, LongAdder> counts) {
    Map<E, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> {
      if (v.sum() != 0) {
        out.put(k, v.sum());
      }
    });
    return out;
  }

  /** {@code counts} without its zero entries, sorted, to compare with {@link #sums}. */
  static <E extends Enum<E>> Map<E, Long> nonZero(Map<E, Long> counts) {
    Map<E, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> {
      if (v != 0) {
        out.put(k, v);
      }
    });
    return out;
  }

  @Override
  public void onDecision(Request request, RoutingDecision decision) {
    decisionsHeard.increment();
  }

  @Override
  public void onOrphaned(String replicaId, long epoch, List<RequestRef> attempts) {
    orphanedHeard.add(attempts.size());
  }

  @Override
  public void onLeaseExpired(RequestRef attempt, String replicaId) {
    expiredHeard.increment();
  }

  @Override
  public void onPluginFailure(String plugin, Throwable error) {
    pluginFailuresHeard.increment();
    violation("plugin failure in " + plugin + ": " + error);
  }

  @Override
  public void onOutcome(Outcome outcome, UpdateResult result) {}

  private static <E extends Enum<E>> Map<E, LongAdder> adders(Class<E> type) {
    Map<E, LongAdder> m = new EnumMap<>(type);
    for (E e : type.getEnumConstants()) {
      m.put(e, new LongAdder());
    }
    return m;
  }
}
