package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.Map;

/** Provides {@code round-robin}. Takes no options. */
public final class RoundRobinPolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return RoundRobinPolicy.NAME;
  }

  @Override
  public String description() {
    return "next eligible replica in turn (baseline; balances counts, scatters prefixes)";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    return PolicyConfig.of(config).finish(RoundRobinPolicy::new);
  }
}
