package io.github.kvroute.micrometer;

import io.github.kvroute.api.BreakerState;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import io.github.kvroute.core.ReplicaStatus;
import io.github.kvroute.core.Router;
import io.github.kvroute.core.RouterStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for one {@link Router}: a {@link RouterListener} that counts what the router
 * decides and learns, and a {@link MeterBinder} that also reads the router's totals
 * ({@link Router#stats()}) and breakers ({@link Router#replicas()}) when the registry is read. Every
 * meter is listed, with its tags, in docs/metrics.md.
 *
 * <pre>{@code
 * RouterMetrics metrics = RouterMetrics.newBuilder().tags(Tags.of("gateway", "gw-1")).build();
 * Router router = Router.newBuilder().listener(metrics).build();
 * metrics.monitor(router);        // gauges, and the policy tag
 * metrics.bindTo(registry);       // any number of registries, before or after monitor
 * }</pre>
 *
 * <p>The listener must exist before the router (it is given to the builder), and the gauges need the
 * router: hence {@link #monitor}, called once after {@code build()}. Until then gauges read NaN and
 * decisions are tagged {@code policy=unknown}. Events that arrive before the first {@link #bindTo}
 * are not counted. One instance serves one router; give each router its own.
 *
 * <p>Tag cardinality is bounded: {@code replica} takes the first {@code maxReplicaTags} distinct
 * replica ids (default {@value #DEFAULT_MAX_REPLICA_TAGS}) and folds every later one into
 * {@code other}; an id keeps its tag for the binder's life, so a fleet whose replica ids churn (pod
 * names) should set the bound above the ids it uses in a process's life, or 0 to fold them all.
 * {@code policy} has one value per router; {@code reason}, {@code result}, {@code status},
 * {@code state}, {@code to} and {@code direction} are enums; {@code plugin} names the host's
 * configured plugins.
 *
 * <p>Thread-safety: thread-safe; the listener methods are called from request and telemetry threads
 * concurrently; the decision and TTFT events allocate nothing once a meter exists for their tags.
 */
public final class RouterMetrics implements RouterListener, MeterBinder {
  /** The default bound on distinct {@code replica} tag values. */
  public static final int DEFAULT_MAX_REPLICA_TAGS = 100;

  private static final String UNKNOWN_POLICY = "unknown";

  private final CompositeMeterRegistry meters = new CompositeMeterRegistry();
  private final Tags commonTags;
  private final ReplicaTags replicas;
  private volatile Router router;
  private volatile String policy = UNKNOWN_POLICY;
  // one meter per tag combination, looked up without allocating; bounded by the tags' bounds
  private final Map<String, Counter> routed = new ConcurrentHashMap<>();
  private final Map<RejectReason, Counter> rejected = new ConcurrentHashMap<>();
  private final Map<String, Counter> retries = new ConcurrentHashMap<>();
  private final Map<String, DistributionSummary> ttftUnder = new ConcurrentHashMap<>();
  private final Map<String, DistributionSummary> ttftOver = new ConcurrentHashMap<>();
  private final Map<String, DistributionSummary> ttftObserved = new ConcurrentHashMap<>();
  private final Map<UpdateResult, Map<OutcomeStatus, Counter>> outcomes = new ConcurrentHashMap<>();
  private final Map<String, Counter> orphaned = new ConcurrentHashMap<>();
  private final Map<String, Counter> expired = new ConcurrentHashMap<>();
  private final Map<String, Counter> restarts = new ConcurrentHashMap<>();
  private final Map<BreakerState, Map<String, Counter>> breakerTransitions =
      new ConcurrentHashMap<>();
  private final Map<ReplicaState, Counter> stateChanges = new ConcurrentHashMap<>();
  private final Map<String, Counter> pluginFailures = new ConcurrentHashMap<>();
  // the per-decision paths' meter factories, made once so that a lookup allocates nothing
  private final Function<String, Counter> newRouted = r -> counter("kvroute.routed",
      "Route calls that routed the request, by policy and replica", "policy", policy, "replica", r);
  private final Function<RejectReason, Counter> newRejected = r -> counter("kvroute.rejected",
      "Route calls that rejected the request, by policy and reason", "policy", policy,
      "reason", lower(r));
  private final Function<String, DistributionSummary> newUnder = r -> ttftError("under", r);
  private final Function<String, DistributionSummary> newOver = r -> ttftError("over", r);
  private final Function<String, DistributionSummary> newObserved = r -> summary(
      "kvroute.ttft.observed", "Observed time to first token of routed attempts", "replica", r);

  private RouterMetrics(Builder b) {
    this.commonTags = b.tags;
    this.replicas = new ReplicaTags(b.maxReplicaTags);
    registerGauges();
  }

  /**
   * {@return meters with the default bound on replica tags and no common tags; add them to a router
   * with {@code Router.Builder.listener}, then {@link #monitor} it}
   */
  public static RouterMetrics create() {
    return newBuilder().build();
  }

  /** {@return a builder with the default bound on replica tags and no common tags} */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * The router whose totals and breakers the gauges read, and whose policy names the {@code policy}
   * tag. Call once, after building the router with this listener.
   *
   * @param router the router this listener was added to
   * @return this, to chain {@code bindTo(registry)}
   * @throws IllegalStateException if a router is already monitored
   * @throws NullPointerException if {@code router} is null
   */
  public synchronized RouterMetrics monitor(Router router) {
    Objects.requireNonNull(router, "router: null (expected: the router this listener was added to)");
    if (this.router != null) {
      throw new IllegalStateException(
          "router: already monitored (expected: one router per RouterMetrics)");
    }
    this.policy = router.policyName();
    // counters made before the policy was known keep their policy=unknown series; new ones use it
    routed.clear();
    rejected.clear();
    retries.clear();
    this.router = router;
    return this;
  }

  /** Adds {@code registry} to the registries these meters report to; may be called several times. */
  @Override
  public void bindTo(MeterRegistry registry) {
    meters.add(Objects.requireNonNull(registry, "registry: null (expected: a meter registry)"));
  }

  // ------------------------------------------------------------------------------------ events

  @Override
  public void onDecision(Request request, RoutingDecision decision) {
    if (decision.isRouted()) {
      meter(routed, replicas.of(decision.replicaId()), newRouted).increment();
    } else {
      meter(rejected, decision.reason(), newRejected).increment();
    }
    if (request.attempt() > 1) {
      retries.computeIfAbsent(policy, p -> counter("kvroute.retries",
          "Route calls for a later attempt of a request (a retry)", "policy", p)).increment();
    }
  }

  @Override
  public void onTtftObserved(
      RequestRef attempt, String replicaId, double predictedMillis, double actualMillis) {
    String replica = replicas.of(replicaId);
    double error = actualMillis - predictedMillis;
    if (error >= 0) {
      meter(ttftUnder, replica, newUnder).record(error);
    } else {
      meter(ttftOver, replica, newOver).record(-error);
    }
    meter(ttftObserved, replica, newObserved).record(actualMillis);
  }

  @Override
  public void onOutcome(Outcome outcome, UpdateResult result) {
    outcomes.computeIfAbsent(result, r -> new ConcurrentHashMap<>())
        .computeIfAbsent(outcome.status(), s -> counter("kvroute.outcomes",
            "Outcome reports, by what the router did with them and the attempt's status",
            "result", lower(result), "status", lower(s))).increment();
  }

  @Override
  public void onOrphaned(String replicaId, long epoch, List<RequestRef> attempts) {
    orphaned.computeIfAbsent(replicas.of(replicaId), r -> counter("kvroute.attempts.orphaned",
        "Attempts in flight on a replica that stopped, restarted or was removed (to retry)",
        "replica", r)).increment(attempts.size());
  }

  @Override
  public void onLeaseExpired(RequestRef attempt, String replicaId) {
    expired.computeIfAbsent(replicas.of(replicaId), r -> counter("kvroute.leases.expired",
        "Attempts whose outcome never came within the lease timeout", "replica", r)).increment();
  }

  @Override
  public void onReplicaRestarted(String replicaId, long previousEpoch, long epoch) {
    restarts.computeIfAbsent(replicas.of(replicaId), r -> counter("kvroute.replica.restarts",
        "Replica processes replaced (a new epoch)", "replica", r)).increment();
  }

  @Override
  public void onReplicaStateChanged(
      String replicaId, long epoch, ReplicaState previous, ReplicaState current) {
    stateChanges.computeIfAbsent(current, s -> counter("kvroute.replica.state.changes",
        "Replicas joining or changing state, by the state entered", "to", lower(s))).increment();
  }

  @Override
  public void onBreakerStateChanged(String replicaId, BreakerState previous, BreakerState current) {
    breakerTransitions.computeIfAbsent(current, s -> new ConcurrentHashMap<>())
        .computeIfAbsent(replicas.of(replicaId), r -> counter("kvroute.breaker.transitions",
            "Circuit-breaker transitions, by replica and the state entered", "replica", r,
            "to", lower(current))).increment();
  }

  @Override
  public void onPluginFailure(String plugin, Throwable error) {
    pluginFailures.computeIfAbsent(plugin, p -> counter("kvroute.plugin.failures",
        "Failures of host plugins the router contained, by plugin", "plugin", p)).increment();
  }

  // ------------------------------------------------------------------------ router's totals

  private void registerGauges() {
    gauge("kvroute.index.entries", "(replica, block) entries in the prefix index", null,
        RouterStats::indexEntries);
    gauge("kvroute.index.blocks", "Distinct blocks in the prefix index", null,
        RouterStats::indexBlocks);
    gauge("kvroute.index.size", "Estimated memory held by the prefix index", "bytes",
        RouterStats::indexBytes);
    gauge("kvroute.index.budget", "The prefix index's hard memory budget", "bytes",
        RouterStats::indexBudgetBytes);
    gauge("kvroute.inflight", "Routed attempts awaiting their outcome (open leases)", null,
        RouterStats::inFlight);
    total("kvroute.index.hints.dropped",
        "Optimistic index inserts dropped because the index's write buffer was full",
        RouterStats::droppedIndexHints);
    total("kvroute.index.compactions", "Compactions of the prefix index's arrays",
        RouterStats::indexCompactions);
    total("kvroute.kv.events.dropped", "KV events dropped because their replica was unknown",
        RouterStats::droppedKvEvents);
    total("kvroute.kv.events.gaps",
        "Gaps in replicas' KV-event sequence numbers (events lost in transit)",
        RouterStats::kvEventGaps);
    total("kvroute.kv.events.out.of.order",
        "KV events dropped as duplicates or late retransmissions", RouterStats::outOfOrderKvEvents);
    total("kvroute.reports.skewed",
        "Replica reports ignored because they were observed too far in the router's future",
        RouterStats::skewedReports);
    for (BreakerState state : BreakerState.values()) {
      Gauge.builder("kvroute.replicas.breaker", this, m -> m.replicasWithBreaker(state))
          .description("Known replicas whose circuit breaker is in the given state")
          .tags(commonTags).tag("state", lower(state)).register(meters);
    }
  }

  private void gauge(String name, String description, String unit,
      ToDoubleFunction<RouterStats> read) {
    Gauge.builder(name, this, m -> m.read(read)).description(description).baseUnit(unit)
        .tags(commonTags).register(meters);
  }

  private void total(String name, String description, ToDoubleFunction<RouterStats> read) {
    FunctionCounter.builder(name, this, m -> m.read(read)).description(description)
        .tags(commonTags).register(meters);
  }

  private double read(ToDoubleFunction<RouterStats> field) {
    Router r = router;
    return r == null ? Double.NaN : field.applyAsDouble(r.stats());
  }

  private double replicasWithBreaker(BreakerState state) {
    Router r = router;
    if (r == null) {
      return Double.NaN;
    }
    int n = 0;
    for (ReplicaStatus s : r.replicas()) {
      if (s.breaker() == state) {
        n++;
      }
    }
    return n;
  }

  // ------------------------------------------------------------------------------- helpers

  /** The cached meter for {@code key}, made on first use; a hit allocates nothing. */
  private static <K, M> M meter(Map<K, M> cache, K key, Function<K, M> make) {
    M m = cache.get(key);
    return m != null ? m : cache.computeIfAbsent(key, make);
  }

  private Counter counter(String name, String description, String... tagPairs) {
    return Counter.builder(name).description(description).tags(commonTags).tags(tagPairs)
        .register(meters);
  }

  private DistributionSummary ttftError(String direction, String replica) {
    return summary("kvroute.ttft.error", "How far observed TTFT was from the decision's"
        + " prediction: |actual - predicted|; direction=under when actual >= predicted, over when"
        + " below", "replica", replica, "direction", direction);
  }

  private DistributionSummary summary(String name, String description, String... tagPairs) {
    return DistributionSummary.builder(name).description(description).baseUnit("milliseconds")
        .tags(commonTags).tags(tagPairs).register(meters);
  }

  private static String lower(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }

  /** Builds {@link RouterMetrics}. Not thread-safe. */
  public static final class Builder {
    private Tags tags = Tags.empty();
    private int maxReplicaTags = DEFAULT_MAX_REPLICA_TAGS;

    private Builder() {}

    /**
     * Tags added to every meter (for example which gateway instance this router runs in).
     *
     * @param tags the common tags, possibly none
     * @return this builder
     */
    public Builder tags(Iterable<Tag> tags) {
      this.tags = Tags.of(Objects.requireNonNull(tags, "tags: null (expected: tags, possibly none)"));
      return this;
    }

    /**
     * How many distinct replica ids get a {@code replica} tag of their own; later ones are tagged
     * {@code other}. Default {@value #DEFAULT_MAX_REPLICA_TAGS}.
     *
     * @param max the bound on the {@code replica} tag's values (a meter registry's cardinality)
     * @return this builder
     * @throws IllegalArgumentException if negative
     */
    public Builder maxReplicaTags(int max) {
      if (max < 0) {
        throw new IllegalArgumentException("maxReplicaTags: " + max + " (expected: >= 0)");
      }
      this.maxReplicaTags = max;
      return this;
    }

    /** {@return the meters, registered on no registry until {@code bindTo}} */
    public RouterMetrics build() {
      return new RouterMetrics(this);
    }
  }
}
