package io.github.kvroute.advisors;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import io.github.kvroute.api.RoutingPolicyRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Provides {@code hot-prefix-replication}: {@link ReplicatedPrefixPolicy} in front of another
 * registered policy, with its own {@link HotPrefixAdvisor} per router, evaluated every
 * {@code evaluate_ms} by the requests themselves. Not registered by default (the policy advises on the
 * fleet's shape, which a host opts into): register it in the router's registry,
 * {@code registry.register(new ReplicatedPrefixPolicyProvider(listener))}.
 *
 * <p>Options: {@code delegate} (a policy name in the router's registry other than this one; default
 * {@code cache-aware}), every {@code delegate.KEY} passed to it as {@code KEY};
 * {@code prefix_tokens} (integer in [1, 1048576], default 512: the tokens that name a prefix);
 * {@code max_replicas} (integer in [1, 4096], default 4); {@code promote_ms_per_s} (number in
 * [1, 1000000], default 1000: the recompute bill, in ms of engine time per second, that justifies
 * each replica beyond the first); {@code evaluate_ms} (integer in
 * [1, 3600000], default 1000).
 *
 * <p>Thread-safety: thread-safe; each policy it makes has its own advisor, whose changes go to the
 * listener given here.
 */
public final class ReplicatedPrefixPolicyProvider extends RoutingPolicyProvider {
  static final String PREFIX = "delegate.";
  private final ReplicationListener listener;

  /** A provider whose advisors tell nobody of their changes (for {@link java.util.ServiceLoader}). */
  public ReplicatedPrefixPolicyProvider() {
    this(change -> { });
  }

  /**
   * A provider whose advisors tell {@code listener} every change of advice.
   *
   * @param listener told every change of advice; not null
   */
  public ReplicatedPrefixPolicyProvider(ReplicationListener listener) {
    this.listener = java.util.Objects.requireNonNull(listener,
        "listener: null (expected: non-null)");
  }

  @Override
  public String policyName() {
    return ReplicatedPrefixPolicy.NAME;
  }

  @Override
  public String description() {
    return "hot prefixes spread over k holders by cost, as a replication advisor decides; the"
        + " delegate places the rest";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(Map<String, String> config,
      PolicyEnvironment environment) {
    Map<String, String> own = new HashMap<>();
    Map<String, String> forDelegate = new HashMap<>();
    config.forEach((k, v) -> (k.startsWith(PREFIX) ? forDelegate : own)
        .put(k.startsWith(PREFIX) ? k.substring(PREFIX.length()) : k, v));
    PolicyConfig c = PolicyConfig.of(own);
    RoutingPolicyRegistry registry = environment.registry();
    Set<String> allowed = new TreeSet<>(registry.policyNames());
    allowed.remove(ReplicatedPrefixPolicy.NAME);
    String delegate = c.oneOf("delegate", "cache-aware", allowed);
    int prefixTokens = c.intIn("prefix_tokens", 512, 1, 1 << 20);
    int maxReplicas = c.intIn("max_replicas", 4, 1, 4_096);
    double promote = c.doubleIn("promote_ms_per_s", 1_000, 1, 1_000_000);
    long evaluateMillis = c.longIn("evaluate_ms", 1_000, 1, 3_600_000);
    ConfigOrError<String> parsed = c.finish(() -> delegate);
    if (!parsed.isOk()) {
      return ConfigOrError.error(parsed.error());
    }
    ConfigOrError<RoutingPolicy> inner = registry.newPolicy(delegate, forDelegate, environment);
    if (!inner.isOk()) {
      return ConfigOrError.error(PREFIX + inner.error().replace("; ", "; " + PREFIX));
    }
    HotPrefixAdvisor advisor = HotPrefixAdvisor.create(ReplicationConfig.defaults()
        .withMaxReplicas(maxReplicas).withPromoteMillisPerSecond(promote), environment.ticker());
    advisor.subscribe(listener);
    return ConfigOrError.of(ReplicatedPrefixPolicy.wrapEvaluating(inner.value(), advisor,
        prefixTokens, TimeUnit.MILLISECONDS.toNanos(evaluateMillis)));
  }
}
