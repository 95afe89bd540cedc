package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.Map;

/**
 * Provides {@code cache-aware} (SGLang/SMG), with SMG's CLI defaults.
 *
 * <p>Options: {@code cache_threshold} (number in [0, 1], default 0.3: the prefix match rate above
 * which the longest-match replica is chosen); {@code balance_abs_threshold} (integer in
 * [0, 2147483647], default 64) and {@code balance_rel_threshold} (number in [1, 1000000], default
 * 1.5): the fleet is imbalanced when max - min in-flight requests exceeds the first AND max exceeds
 * the second times min.
 */
public final class CacheAwarePolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return CacheAwarePolicy.NAME;
  }

  @Override
  public String description() {
    return "SGLang/SMG cache_aware: least-loaded when imbalanced, else longest prefix above a"
        + " match threshold";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    PolicyConfig c = PolicyConfig.of(config);
    double cache = c.doubleIn("cache_threshold", CacheAwarePolicy.DEFAULT_CACHE_THRESHOLD, 0, 1);
    int abs = c.intIn("balance_abs_threshold", CacheAwarePolicy.DEFAULT_BALANCE_ABS_THRESHOLD, 0,
        Integer.MAX_VALUE);
    double rel = c.doubleIn("balance_rel_threshold",
        CacheAwarePolicy.DEFAULT_BALANCE_REL_THRESHOLD, 1, 1_000_000);
    return c.finish(() -> new CacheAwarePolicy(cache, abs, rel));
  }
}
