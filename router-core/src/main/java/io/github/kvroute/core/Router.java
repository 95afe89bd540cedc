package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkNotNull;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.DecisionExplanation;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.api.Scorer;
import io.github.kvroute.api.TelemetrySink;
import io.github.kvroute.api.TelemetrySource;
import io.github.kvroute.api.Ticker;
import io.github.kvroute.api.UpdateResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * Decides, for every request, which replica should serve it, or that none should.
 *
 * <pre>{@code
 * Router router = Router.newBuilder()
 *     .policy("hybrid-cost")                 // found through RoutingPolicyRegistry (ServiceLoader)
 *     .blockSizeTokens(16)
 *     .indexBudgetBytes(256L << 20)
 *     .listener(metricsListener)
 *     .build();
 *
 * router.onSnapshot(snapshot);               // telemetry threads, as reports arrive
 * router.onKvEvent(event);                   // when engines publish KV events
 *
 * RoutingDecision d = router.route(request); // request threads
 * if (d.isRouted()) forward(d.replicaId()); else reply429(d.retryAfter());
 * log.debug("{}", router.explain(request));  // every replica's cost terms, or why it was left out
 *
 * router.onPrefillDone(id, attempt, p, e);    // disaggregated: the prefill replica answered
 * router.onFirstToken(id, attempt, d.replicaId(), d.epoch()); // streaming: first token arrived
 * router.onOutcome(outcome);                 // when the response ends or fails
 * }</pre>
 *
 * <p>Programming errors (a null, an attempt routed twice, a prompt hashed with another block size)
 * throw {@link IllegalArgumentException} or {@link NullPointerException} before any state changes.
 * Situations that happen in production are values: an empty or unavailable fleet is a
 * {@link io.github.kvroute.api.RejectReason#NO_CANDIDATES} rejection, a stale report or a
 * duplicated outcome an {@link UpdateResult}. Host plugins (policy, scorers, admission, listeners,
 * telemetry sources) are contained: any {@link Throwable} they throw is logged through SLF4J (at WARN
 * once per plugin and fallback, naming the fallback), counted in
 * {@link RouterStats#pluginFailures()}, and a safe fallback is used; only {@link OutOfMemoryError},
 * {@link InternalError} and {@link UnknownError} are rethrown, and then no attempt stays recorded
 * for a decision {@code route} did not return.
 *
 * <p>Thread-safety: thread-safe. {@link #route} is meant to be called concurrently from request threads
 * while telemetry, KV events and outcomes arrive on others. It takes no router-wide lock: the
 * membership is one volatile read, the prefix-index walk is lock-free, and each candidate's books
 * (its dispatch ledger) are read without a lock (a versioned read, which takes the replica's lock
 * only if writers keep it retrying). It takes short locks where it writes: a half-open breaker is locked to
 * reserve a probe; the chosen replica's books are locked to record the send; the
 * attempt is opened in one of 32 stripes of the open-attempt table, chosen by the request id's hash,
 * under that stripe's lock (an outcome closes it there); and a routing thread applies pending index
 * writes only when it wins the index's {@code tryLock}, never waiting for it. Routes contend only
 * when they touch the same replica's books, or their ids' stripe, at the same moment.
 */
public final class Router implements TelemetrySink, AutoCloseable {
  private final String policyName;
  private final int blockSizeTokens;
  private final CostModel costModel;
  private final RouterCounters counters = new RouterCounters();
  private final PluginGuard guard;
  private final PrefixIndex index;
  private final LeaseTable leases;
  private final Fleet fleet;
  private final Feedback feedback;
  private final DecisionPipeline pipeline;
  private final TelemetrySubscriptions subscriptions;
  private final Ticker ticker;

  private Router(RouterOptions o, RoutingPolicy policy) {
    long capacityBlocks = Math.max(1, o.defaultReplicaCacheTokens / o.blockSizeTokens);
    RouterSettings settings = new RouterSettings(o.costModel, o.blockSizeTokens, capacityBlocks,
        o.peerRouters, o.breakerConfig, o.leaseTimeout, o.maxClockSkew, o.maxEpochAdvance, o.ticker,
        o.random, o.topology);
    this.policyName = policy.name();
    this.blockSizeTokens = o.blockSizeTokens;
    this.costModel = o.costModel;
    this.ticker = o.ticker;
    this.guard = new PluginGuard(o.listeners);
    this.subscriptions = new TelemetrySubscriptions(guard);
    List<Scorer> terms = o.costTerms != null ? o.costTerms : CostTerms.standard(o.costModel);
    HostPlugins plugins =
        new HostPlugins(policy, o.admission, new StandardEstimate(terms, guard::failed), guard);
    // data flows one way: outcomes (feedback) and reports (fleet) update what decisions read
    this.index = new PrefixIndex(o.indexBudgetBytes, capacityBlocks, o.indexWriteBufferLimit,
        RunTable.MIN_GARBAGE, o.indexCompactionExecutor);
    CapacityMirror mirror = new CapacityMirror(index, settings);
    MeanWork meanWork = new MeanWork(o.costModel);
    this.feedback = new Feedback(settings, plugins, index, mirror, counters);
    this.leases = feedback.leases();
    this.fleet = new Fleet(settings, index, mirror, meanWork, feedback, guard.listener(),
        counters.kvEventGaps);
    this.pipeline =
        new DecisionPipeline(settings, plugins, fleet, index, leases, meanWork, counters);
  }

  /**
   * {@return a builder with the defaults: {@code hybrid-cost}, standard admission, the standard
   * cost terms and model}
   */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * Decides where {@code request} goes, records the attempt as in flight when routed, and returns the
   * decision. Report what happened through {@link #onOutcome}. Exactly one attempt of a request is
   * authoritative: routing a later attempt ends the record of an earlier one still in flight.
   *
   * @param request the request; its prompt hashed with {@link #blockSizeTokens()} tokens per block
   * @return the decision: routed (its replica and epoch to report back in the outcome) or rejected
   * @throws NullPointerException if {@code request} is null
   * @throws IllegalArgumentException if this attempt of the request, or a later one, is already in
   *     flight, or its prompt was hashed with a block size other than {@link #blockSizeTokens()}
   */
  public RoutingDecision route(Request request) {
    return pipeline.route(request);
  }

  /**
   * What {@link #route} would decide for {@code request} now, with every known replica's standard
   * estimate term by term, its veto, or why it is not a candidate; computed by the same stages on the
   * same state, and changing none of it: no attempt is recorded, no breaker probe reserved or
   * breaker moved, no index guess inserted, no decision counted in {@link #stats()} and no listener
   * told of one. For an admin endpoint or a debug log, not for every request (it allocates the
   * explanation and the decision state).
   *
   * <p>Two things can make the next {@code route} differ from this answer besides new reports and
   * outcomes. Randomness: the policy gets a random source of the explanation's own, seeded from the
   * request id, so explaining never advances the router's seeded stream; a policy that breaks ties at
   * random may name another of the tied candidates. State a policy keeps between decisions: the policy
   * is asked as for a decision, so one that counts its calls (round-robin's turn) or remembers
   * placements (session affinity) takes this one into account. For those, {@link #routeExplained}
   * explains the decision actually made. A plugin that throws here is contained as on the request
   * path: counted in {@link RouterStats#pluginFailures()} and reported to the listeners.
   *
   * @param request the request; its prompt hashed with {@link #blockSizeTokens()} tokens per block
   * @return the would-be decision and every known replica's entry
   * @throws NullPointerException if {@code request} is null
   * @throws IllegalArgumentException if its prompt was hashed with a block size other than
   *     {@link #blockSizeTokens()}
   */
  public DecisionExplanation explain(Request request) {
    return pipeline.explain(request);
  }

  /**
   * {@link #route}, also returning the explanation of the decision it made (its
   * {@link DecisionExplanation#decision()}): every known replica as the policy saw it. The decision
   * is recorded and reported to listeners exactly as by {@code route}; only the explanation is extra,
   * built before the attempt is recorded. {@code route} itself builds none.
   *
   * @param request the request; its prompt hashed with {@link #blockSizeTokens()} tokens per block
   * @return the explanation, whose decision is the one made
   * @throws NullPointerException if {@code request} is null
   * @throws IllegalArgumentException as {@link #route}
   */
  public DecisionExplanation routeExplained(Request request) {
    DecisionExplanation[] explained = new DecisionExplanation[1];
    pipeline.route(request, e -> explained[0] = e);
    return explained[0];
  }

  /**
   * Applies a replica report. A replica is known from its first report; it is routable while its
   * latest report says READY. A report observed more than {@link Builder#maxClockSkew} after the
   * router's now is ignored ({@link UpdateResult#CLOCK_SKEW}); within it, it counts as observed
   * now, and one observed more than a day ago counts as a day old. A report whose epoch runs further
   * ahead of the replica's than {@link Builder#maxEpochAdvance} allows is ignored
   * ({@link UpdateResult#EPOCH_JUMP}), as is a KV event's.
   *
   * @throws NullPointerException if {@code snapshot} is null
   */
  @Override
  public UpdateResult onSnapshot(ReplicaSnapshot snapshot) {
    checkNotNull(snapshot, "snapshot: null (expected: non-null)");
    leases.cleanUp();
    UpdateResult result = fleet.onSnapshot(snapshot);
    if (result == UpdateResult.CLOCK_SKEW) {
      counters.skewedReports.increment();
    }
    return result;
  }

  /**
   * Applies a KV-cache event; the replica's index entries switch to exact mode. An event for a
   * replica that has not reported (or was removed) is dropped and counted:
   * {@link UpdateResult#UNKNOWN_REPLICA}.
   *
   * <p>Events carrying {@linkplain KvEvent#sequence() sequence numbers} are checked per replica and
   * epoch: one not above the last applied (a duplicate, or an older one arriving late) is dropped and
   * counted ({@link UpdateResult#OUT_OF_ORDER}, {@link RouterStats#outOfOrderKvEvents()}); one that
   * skips numbers is applied, but the lost events mean the index no longer mirrors the replica, so
   * the replica is <em>degraded</em> ({@link ReplicaStatus#degradedIndex()}, counted in
   * {@link RouterStats#kvEventGaps()}): its index falls back to approximate mode (this router's own
   * inserts after each routing, beside what later events say) until a full resync: a
   * {@link KvEvent.Type#CLEARED} event or a new epoch.
   *
   * @throws NullPointerException if {@code event} is null
   */
  @Override
  public UpdateResult onKvEvent(KvEvent event) {
    checkNotNull(event, "event: null (expected: non-null)");
    UpdateResult result = fleet.onKvEvent(event);
    if (result == UpdateResult.UNKNOWN_REPLICA) {
      counters.droppedKvEvents.increment();
    } else if (result == UpdateResult.OUT_OF_ORDER) {
      counters.outOfOrderKvEvents.increment();
    }
    return result;
  }

  /**
   * Closes a routed attempt and learns from it. Outcomes for unknown, already-closed or mismatched
   * attempts change nothing and say so.
   *
   * @param outcome the attempt's outcome
   * @return what the router did with it
   * @throws NullPointerException if {@code outcome} is null
   */
  public UpdateResult onOutcome(Outcome outcome) {
    return feedback.onOutcome(outcome);
  }

  /**
   * The first streamed token of a routed attempt reached the host (a streaming gateway sees that
   * moment without any engine support). The attempt stays in flight until {@link #onOutcome}, but its
   * prefill is over: this router's queue estimate for the replica stops counting its prefill work.
   * Optional: a host that does not stream simply never calls it.
   *
   * @return {@link UpdateResult#APPLIED} the first time for an attempt in flight there;
   *     {@link UpdateResult#DUPLICATE} for a repeat or a closed attempt;
   *     {@link UpdateResult#MISMATCHED_REPLICA} when routed elsewhere or to another epoch;
   *     {@link UpdateResult#UNKNOWN_REQUEST} when never routed
   * @param requestId the request's id
   * @param attempt the attempt number
   * @param replicaId the decision's {@link RoutingDecision#replicaId()}
   * @param epoch the decision's {@link RoutingDecision#epoch()}
   * @throws NullPointerException if {@code requestId} or {@code replicaId} is null
   * @throws IllegalArgumentException if {@code requestId} is blank or {@code attempt < 1}
   */
  public UpdateResult onFirstToken(String requestId, int attempt, String replicaId, long epoch) {
    checkNotNull(replicaId, "replicaId: null (expected: non-null)");
    return feedback.onFirstToken(new RequestRef(requestId, attempt), replicaId, epoch);
  }

  /**
   * A disaggregated attempt's prefill replica answered its prefill request: in vLLM's disaggregated
   * proxy flow the gateway sends the prompt there first (with {@code max_tokens = 1}) and forwards the
   * request to the decode replica when that answers. The prefill's work leaves this router's queue
   * estimate for the prefill replica now, not at the first token, which comes only after the KV move
   * (over a slow link, seconds later). Optional: without it the prefill counts until the first token.
   *
   * @param prefillReplicaId and {@code prefillEpoch}: the decision's
   *     {@link RoutingDecision#prefillReplicaId()} and {@link RoutingDecision#prefillEpoch()}
   * @return {@link UpdateResult#APPLIED} the first time for a disaggregated attempt in flight;
   *     {@link UpdateResult#DUPLICATE} for a repeat, a report after the first token, or a closed
   *     attempt; {@link UpdateResult#MISMATCHED_REPLICA} when its prefill ran elsewhere, in another
   *     epoch, or it was not disaggregated; {@link UpdateResult#UNKNOWN_REQUEST} when never routed
   * @param requestId the request's id
   * @param attempt the attempt number
   * @param prefillEpoch the decision's {@link RoutingDecision#prefillEpoch()}
   * @throws NullPointerException if {@code requestId} or {@code prefillReplicaId} is null
   * @throws IllegalArgumentException if {@code requestId} is blank or {@code attempt < 1}
   */
  public UpdateResult onPrefillDone(String requestId, int attempt, String prefillReplicaId,
      long prefillEpoch) {
    checkNotNull(prefillReplicaId, "prefillReplicaId: null (expected: non-null)");
    return feedback.onPrefillDone(new RequestRef(requestId, attempt), prefillReplicaId,
        prefillEpoch);
  }

  /**
   * Forgets a replica the host's membership says is gone: it stops being routable, its index entries
   * are dropped, its in-flight attempts are orphaned (reported to listeners for retry), and late
   * reports from its last epoch are ignored.
   *
   * @return whether the replica was known
   * @param replicaId the replica's id
   */
  public boolean removeReplica(String replicaId) {
    checkNotNull(replicaId, "replicaId: null (expected: non-null)");
    return fleet.remove(replicaId);
  }

  /** {@return the router's totals now} */
  public RouterStats stats() {
    return StatusViews.stats(counters, leases, index, guard);
  }

  /**
   * {@return every replica this router knows, sorted by id, as it sees them now} Reads every
   * replica's books and applies the index's pending writes: for admin endpoints, not for the
   * request path.
   */
  public List<ReplicaStatus> replicas() {
    return StatusViews.replicas(fleet, index, ticker.read());
  }

  /** {@return the name of the policy in use} */
  public String policyName() {
    return policyName;
  }

  /** {@return tokens per prefix-index block; prompts must be hashed with the same size} */
  public int blockSizeTokens() {
    return blockSizeTokens;
  }

  /** {@return the cost model of the router's estimates} */
  public CostModel costModel() {
    return costModel;
  }

  /** Stops telemetry subscriptions. Routing keeps working on the last known state. */
  @Override
  public void close() {
    subscriptions.close();
  }

  // package-private hooks for tests
  PrefixIndex index() {
    return index;
  }

  Fleet fleet() {
    return fleet;
  }

  LeaseTable leases() {
    return leases;
  }

  /** Builds a {@link Router}. Not thread-safe; each option may be set once. */
  public static final class Builder {
    private final RouterOptions options = new RouterOptions();

    private Builder() {}

    /**
     * The policy by registered name; default {@code hybrid-cost}.
     *
     * @param name the policy's registered name
     * @return this builder
     */
    public Builder policy(String name) {
      return policy(name, Map.of());
    }

    /**
     * The policy by registered name, with its configuration (parsed by its provider).
     *
     * @param name the policy's registered name
     * @param config its options; copied
     * @return this builder
     */
    public Builder policy(String name, Map<String, String> config) {
      options.policy(name, config);
      return this;
    }

    /**
     * A policy instance, bypassing the registry.
     *
     * @param policy the policy; not null
     * @return this builder
     * @throws IllegalStateException if a {@link #registry} was set: it would resolve nothing
     */
    public Builder policy(RoutingPolicy policy) {
      options.policy(policy);
      return this;
    }

    /**
     * Where policy names are resolved; default {@link RoutingPolicyRegistry#defaultRegistry()}.
     *
     * @param registry the registry; not null
     * @return this builder
     * @throws IllegalStateException if a policy instance was set: the registry would resolve nothing
     */
    public Builder registry(RoutingPolicyRegistry registry) {
      options.registry(registry);
      return this;
    }

    /**
     * The veto after the policy; default {@link Admission#standard()}.
     *
     * @param admission the controller; not null
     * @return this builder
     */
    public Builder admission(AdmissionController admission) {
      options.admission(admission);
      return this;
    }

    /**
     * Sets the constants of the router's estimates; default {@link CostModel#defaults()}.
     *
     * @param costModel the cost model; not null
     * @return this builder
     */
    public Builder costModel(CostModel costModel) {
      options.costModel(costModel);
      return this;
    }

    /**
     * The terms of the router's own estimate; default {@link CostTerms#standard}.
     *
     * @param terms the scorers, at least one, each name once; copied
     * @return this builder
     */
    public Builder costTerms(List<Scorer> terms) {
      options.costTerms(terms);
      return this;
    }

    /**
     * Tokens per index block; prompts must be hashed with the same size. Default 16.
     *
     * @param tokens tokens per block; {@code >= 1}
     * @return this builder
     */
    public Builder blockSizeTokens(int tokens) {
      options.blockSizeTokens(tokens);
      return this;
    }

    /**
     * Hard memory budget of the prefix index. Default 256 MiB.
     *
     * @param bytes the budget; at least the index's minimum
     * @return this builder
     */
    public Builder indexBudgetBytes(long bytes) {
      options.indexBudgetBytes(bytes);
      return this;
    }

    /**
     * Cache size assumed for a replica that does not report its KV capacity. Default 2^20 tokens.
     *
     * @param tokens the assumed capacity, in tokens; {@code >= 1}
     * @return this builder
     */
    public Builder defaultReplicaCacheTokens(long tokens) {
      options.defaultReplicaCacheTokens(tokens);
      return this;
    }

    /**
     * Time source; default {@link Ticker#system()}. Simulations inject virtual time.
     *
     * @param ticker the clock; not null
     * @return this builder
     */
    public Builder ticker(Ticker ticker) {
      options.ticker(ticker);
      return this;
    }

    /**
     * Randomness for policies; default thread-local (not reproducible).
     *
     * @param random the source; not null
     * @return this builder
     */
    public Builder random(RandomSource random) {
      options.random(random);
      return this;
    }

    /**
     * Shorthand for {@code random(RandomSource.seeded(seed))}: reproducible decisions.
     *
     * @param seed the seed
     * @return this builder
     */
    public Builder seed(long seed) {
      return random(RandomSource.seeded(seed));
    }

    /**
     * Adds a listener; call it once per listener (a router may have several). Every event goes to
     * each listener in the order they were added, on the thread whose call caused it (see
     * {@link RouterListener}). A listener that throws is contained: counted in
     * {@link RouterStats#pluginFailures()}, reported to the other listeners, and the others still
     * hear of the event.
     *
     * @param listener the listener; not null
     * @return this builder
     */
    public Builder listener(RouterListener listener) {
      options.listener(listener);
      return this;
    }

    /**
     * Sources the router subscribes to when built (and unsubscribes from on close).
     *
     * @param sources the sources; copied
     * @return this builder
     */
    public Builder telemetrySources(List<TelemetrySource> sources) {
      options.telemetrySources(sources);
      return this;
    }

    /** Longest accepted {@link #leaseTimeout}: beyond it a lost outcome holds a replica's books. */
    public static final Duration MAX_LEASE_TIMEOUT = Duration.ofDays(30);
    /** Default {@link #maxEpochAdvance}: 2^58, about nine years of nanoseconds. */
    public static final long DEFAULT_MAX_EPOCH_ADVANCE = 1L << 58;

    /**
     * How long an attempt may stay open without an outcome, at most {@link #MAX_LEASE_TIMEOUT}.
     * Default 10 minutes. Closed attempts are remembered (to recognise duplicated outcomes) for
     * twice as long.
     *
     * @param timeout between 1 ms and {@link #MAX_LEASE_TIMEOUT}
     * @return this builder
     */
    public Builder leaseTimeout(Duration timeout) {
      options.leaseTimeout(timeout);
      return this;
    }

    /**
     * How many other routers send to the same fleet (gateway instances beside this one). Their traffic
     * is invisible to this router: it assumes each of them sends like itself when it replays its sends
     * onto stale reports, and prices the rest as staleness risk. Unset (the default), the router
     * measures it from the replicas' received-requests counters when they report one, else assumes 0.
     *
     * @param count other routers; {@code >= 0}
     * @return this builder
     */
    public Builder peerRouters(int count) {
      options.peerRouters(count);
      return this;
    }

    /**
     * Sets when replicas' circuit breakers open and how they recover; default
     * {@link BreakerConfig#defaults()}.
     *
     * @param config the breaker configuration; not null
     * @return this builder
     */
    public Builder breaker(BreakerConfig config) {
      options.breaker(config);
      return this;
    }

    /**
     * Optimistic inserts (and their rollbacks) the index's write buffer holds before more are
     * dropped and counted. Default 65,536. The buffer is also bounded in bytes, to an eighth of the
     * index budget (at least 64 KiB). KV events are never buffered: their producer applies them.
     *
     * @param commands buffered commands; {@code >= 1}
     * @return this builder
     */
    public Builder indexWriteBufferLimit(int commands) {
      options.indexWriteBufferLimit(commands);
      return this;
    }

    /**
     * Where the prefix index compacts its arrays when garbage calls for it: every live block moved
     * and its key table filled again, about 22 ms per million live blocks held. Default
     * {@link java.util.concurrent.ForkJoinPool#commonPool()}: the write that calls for a
     * compaction (often a routed insert, on the routing thread) hands it over and returns, and
     * routing walks the published arrays meanwhile, never waiting for it; optimistic inserts queue
     * in the write buffer and KV events wait until it ends. {@code Runnable::run} compacts on the
     * writing thread instead, inside the write (reproducible runs; the simulator's choice). An
     * executor that refuses the task gets the compaction done on the writing thread. The index's
     * budget holds either way (a write that would take the arrays past it compacts at once); the
     * old and new arrays coexist while a compaction runs on the executor.
     *
     * @param executor where compactions run; not null
     * @return this builder
     */
    public Builder indexCompactionExecutor(Executor executor) {
      options.indexCompactionExecutor(executor);
      return this;
    }

    /**
     * How far in the router's future a report's {@code observedAtNanos} may be (replica and router
     * clocks differ) before the report is ignored as {@link UpdateResult#CLOCK_SKEW}. Default 5 s;
     * at most a day.
     *
     * @param skew between 0 and 24 hours
     * @return this builder
     */
    public Builder maxClockSkew(Duration skew) {
      options.maxClockSkew(skew);
      return this;
    }

    /**
     * How far a replica's epoch may run ahead of the epoch the router knows for it (its current one,
     * or its last one if removed), beyond the nanoseconds elapsed on the router's ticker since the
     * router learnt that one; a report or KV event further ahead is ignored as
     * {@link UpdateResult#EPOCH_JUMP}. An epoch that is a counter advances by one per restart, and
     * one that is a process start time advances no faster than its clock, by at most the old
     * process's age when the router first saw it plus the time since; the default, 2^58, is about
     * nine years of nanoseconds (a start time in seconds, milliseconds or microseconds, or a counter,
     * can never come near it), while a corrupted epoch such as 2^61 is refused. The first epoch the
     * router sees for an id has nothing to compare with and is taken as it is. At least 1, at most
     * {@link ReplicaSnapshot#MAX_EPOCH} (which refuses nothing below that).
     *
     * @param advance nanoseconds of epoch, in {@code [1, ReplicaSnapshot.MAX_EPOCH]}
     * @return this builder
     */
    public Builder maxEpochAdvance(long advance) {
      options.maxEpochAdvance(advance);
      return this;
    }

    /**
     * Where the replicas sit and how fast their links move KV, for a disaggregated fleet's pair
     * choice (the transfer from prefill to decode replica). Default {@link Topology#uniform()}:
     * every pair at the cost model's transfer bandwidth.
     *
     * @param topology the placement and link bandwidths; not null
     * @return this builder
     */
    public Builder topology(Topology topology) {
      options.topology(topology);
      return this;
    }

    /**
     * @return the router, subscribed to its telemetry sources
     * @throws IllegalArgumentException if the named policy is unknown or its configuration invalid
     *     (the message names the key and the expected range), or two cost terms share a name
     */
    public Router build() {
      Router router = new Router(options, options.resolvePolicy());
      router.subscriptions.subscribe(options.telemetrySources, router);
      return router;
    }
  }
}
