package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.Map;

/** Provides {@code cache-only}. Takes no options. */
public final class CacheOnlyPolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return CacheOnlyPolicy.NAME;
  }

  @Override
  public String description() {
    return "longest cached prefix, load-blind (the strawman to beat)";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    return PolicyConfig.of(config).finish(CacheOnlyPolicy::new);
  }
}
