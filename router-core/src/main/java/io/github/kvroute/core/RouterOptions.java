package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableList;
import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.api.Scorer;
import io.github.kvroute.api.TelemetrySource;
import io.github.kvroute.api.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * What a {@link Router.Builder} was told: each option's value (its default until set), checked and
 * marked set once as the builder's methods arrive, which delegate here; the public builder keeps the
 * documented API, and {@link Router}'s constructor reads the values.
 *
 * <p>Not thread-safe: one per builder, which is not thread-safe either.
 */
final class RouterOptions {
  String policyName = "hybrid-cost";
  Map<String, String> policyConfig = Map.of();
  RoutingPolicy policy;
  RoutingPolicyRegistry registry;
  AdmissionController admission = Admission.standard();
  CostModel costModel = CostModel.defaults();
  List<Scorer> costTerms;
  int blockSizeTokens = PromptKey.DEFAULT_BLOCK_SIZE_TOKENS;
  long indexBudgetBytes = 256L << 20;
  long defaultReplicaCacheTokens = 1L << 20;
  Ticker ticker = Ticker.system();
  RandomSource random = RandomSource.threadLocal();
  final List<RouterListener> listeners = new ArrayList<>();
  List<TelemetrySource> telemetrySources = List.of();
  Duration leaseTimeout = Duration.ofMinutes(10);
  int peerRouters = -1;
  BreakerConfig breakerConfig = BreakerConfig.defaults();
  int indexWriteBufferLimit = 1 << 16;
  Executor indexCompactionExecutor = ForkJoinPool.commonPool();
  Duration maxClockSkew = Duration.ofSeconds(5);
  long maxEpochAdvance = Router.Builder.DEFAULT_MAX_EPOCH_ADVANCE;
  Topology topology = Topology.uniform();
  /**
   * The builder's options, each set once ({@link SetOnce}): marked only once its value passed its
   * checks, so a rejected value leaves the option unset.
   */
  private enum Option {
    POLICY, REGISTRY, ADMISSION, COST_MODEL, COST_TERMS, BLOCK_SIZE_TOKENS, INDEX_BUDGET_BYTES,
    DEFAULT_REPLICA_CACHE_TOKENS, TICKER, RANDOM, TELEMETRY_SOURCES, LEASE_TIMEOUT,
    PEER_ROUTERS, BREAKER,
    INDEX_WRITE_BUFFER_LIMIT, INDEX_COMPACTION_EXECUTOR, MAX_CLOCK_SKEW, MAX_EPOCH_ADVANCE,
    TOPOLOGY
  }

  private long set;

  void policy(String name, Map<String, String> config) {
    long marked = SetOnce.mark(set, Option.POLICY);
    checkNotNull(name, "policy: null (expected: a registered policy name)");
    checkNotNull(config, "policyConfig: null (expected: a map, possibly empty)");
    policyName = name;
    policyConfig = Map.copyOf(config);
    set = marked;
  }

  void policy(RoutingPolicy policy) {
    checkNotNull(policy, "policy: null (expected: non-null)");
    checkState(registry == null,
        "policy: an instance (expected: a policy name when a registry is set; an instance bypasses it)");
    long marked = SetOnce.mark(set, Option.POLICY);
    this.policy = policy;
    set = marked;
  }

  void registry(RoutingPolicyRegistry registry) {
    checkNotNull(registry, "registry: null (expected: non-null)");
    checkState(policy == null,
        "registry: set after a policy instance (expected: a registry only with a policy name)");
    long marked = SetOnce.mark(set, Option.REGISTRY);
    this.registry = registry;
    set = marked;
  }

  void admission(AdmissionController admission) {
    long marked = SetOnce.mark(set, Option.ADMISSION);
    this.admission = checkNotNull(admission, "admission: null (expected: non-null)");
    set = marked;
  }

  void costModel(CostModel costModel) {
    long marked = SetOnce.mark(set, Option.COST_MODEL);
    this.costModel = checkNotNull(costModel, "costModel: null (expected: non-null)");
    set = marked;
  }

  void costTerms(List<Scorer> terms) {
    long marked = SetOnce.mark(set, Option.COST_TERMS);
    checkNotNull(terms, "costTerms: null (expected: a list of scorers)");
    checkArgument(!terms.isEmpty(), "costTerms: [] (expected: at least one scorer)");
    this.costTerms = ImmutableList.copyOf(terms);
    set = marked;
  }

  void blockSizeTokens(int tokens) {
    long marked = SetOnce.mark(set, Option.BLOCK_SIZE_TOKENS);
    checkArgument(tokens >= 1, "blockSizeTokens: %s (expected: >= 1)", tokens);
    this.blockSizeTokens = tokens;
    set = marked;
  }

  void indexBudgetBytes(long bytes) {
    long marked = SetOnce.mark(set, Option.INDEX_BUDGET_BYTES);
    checkArgument(bytes >= PrefixIndex.MIN_BUDGET_BYTES, "indexBudgetBytes: %s (expected: >= %s)",
        bytes, PrefixIndex.MIN_BUDGET_BYTES);
    this.indexBudgetBytes = bytes;
    set = marked;
  }

  void defaultReplicaCacheTokens(long tokens) {
    long marked = SetOnce.mark(set, Option.DEFAULT_REPLICA_CACHE_TOKENS);
    checkArgument(tokens >= 1, "defaultReplicaCacheTokens: %s (expected: >= 1)", tokens);
    this.defaultReplicaCacheTokens = tokens;
    set = marked;
  }

  void ticker(Ticker ticker) {
    long marked = SetOnce.mark(set, Option.TICKER);
    this.ticker = checkNotNull(ticker, "ticker: null (expected: non-null)");
    set = marked;
  }

  void random(RandomSource random) {
    long marked = SetOnce.mark(set, Option.RANDOM);
    this.random = checkNotNull(random, "random: null (expected: non-null)");
    set = marked;
  }

  void listener(RouterListener listener) {
    listeners.add(checkNotNull(listener, "listener: null (expected: non-null)"));
  }

  void telemetrySources(List<TelemetrySource> sources) {
    long marked = SetOnce.mark(set, Option.TELEMETRY_SOURCES);
    this.telemetrySources = ImmutableList.copyOf(checkNotNull(sources, "telemetrySources"));
    set = marked;
  }

  void leaseTimeout(Duration timeout) {
    long marked = SetOnce.mark(set, Option.LEASE_TIMEOUT);
    checkNotNull(timeout, "leaseTimeout: null (expected: between 1 ms and %s)", Router.Builder.MAX_LEASE_TIMEOUT);
    checkArgument(timeout.compareTo(Duration.ofMillis(1)) >= 0
            && timeout.compareTo(Router.Builder.MAX_LEASE_TIMEOUT) <= 0,
        "leaseTimeout: %s (expected: between 1 ms and %s)", timeout, Router.Builder.MAX_LEASE_TIMEOUT);
    this.leaseTimeout = timeout;
    set = marked;
  }

  void peerRouters(int count) {
    long marked = SetOnce.mark(set, Option.PEER_ROUTERS);
    checkArgument(count >= 0, "peerRouters: %s (expected: >= 0)", count);
    this.peerRouters = count;
    set = marked;
  }

  void breaker(BreakerConfig config) {
    long marked = SetOnce.mark(set, Option.BREAKER);
    this.breakerConfig = checkNotNull(config, "breaker: null (expected: non-null)");
    set = marked;
  }

  void indexWriteBufferLimit(int commands) {
    long marked = SetOnce.mark(set, Option.INDEX_WRITE_BUFFER_LIMIT);
    checkArgument(commands >= 1, "indexWriteBufferLimit: %s (expected: >= 1)", commands);
    this.indexWriteBufferLimit = commands;
    set = marked;
  }

  void indexCompactionExecutor(Executor executor) {
    long marked = SetOnce.mark(set, Option.INDEX_COMPACTION_EXECUTOR);
    this.indexCompactionExecutor = checkNotNull(executor,
        "indexCompactionExecutor: null (expected: an executor; Runnable::run compacts on the "
            + "writing thread)");
    set = marked;
  }

  void maxClockSkew(Duration skew) {
    long marked = SetOnce.mark(set, Option.MAX_CLOCK_SKEW);
    checkArgument(skew != null && !skew.isNegative() && skew.compareTo(Duration.ofDays(1)) <= 0,
        "maxClockSkew: %s (expected: between 0 and PT24H)", skew);
    this.maxClockSkew = skew;
    set = marked;
  }

  void maxEpochAdvance(long advance) {
    long marked = SetOnce.mark(set, Option.MAX_EPOCH_ADVANCE);
    checkArgument(advance >= 1 && advance <= ReplicaSnapshot.MAX_EPOCH,
        "maxEpochAdvance: %s (expected: in [1, %s])", advance, ReplicaSnapshot.MAX_EPOCH);
    this.maxEpochAdvance = advance;
    set = marked;
  }

  void topology(Topology topology) {
    long marked = SetOnce.mark(set, Option.TOPOLOGY);
    this.topology = checkNotNull(topology, "topology: null (expected: non-null)");
    set = marked;
  }

  /**
   * Checks what only the options together can show (each cost term's name once), then gives the
   * policy to build with: the instance set, or the named one from the registry.
   *
   * @throws IllegalArgumentException if the named policy is unknown or its configuration invalid,
   *     or two cost terms share a name
   */
  RoutingPolicy resolvePolicy() {
    if (costTerms != null) {
      List<String> names = costTerms.stream().map(Scorer::name).toList();
      checkArgument(new HashSet<>(names).size() == names.size(),
          "costTerms: %s (expected: each term name once)", names);
    }
    RoutingPolicy resolved = policy;
    if (resolved == null) {
      RoutingPolicyRegistry r = registry != null ? registry : RoutingPolicyRegistry.defaultRegistry();
      ConfigOrError<RoutingPolicy> created =
          r.newPolicy(policyName, policyConfig, PolicyEnvironment.of(ticker, random, r));
      checkArgument(created.isOk(), "%s", created.error());
      resolved = created.value();
    }
    return resolved;
  }
}
