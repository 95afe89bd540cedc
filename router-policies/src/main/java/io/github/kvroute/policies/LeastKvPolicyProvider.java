package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.Map;

/** Provides {@code least-kv}. Takes no options. */
public final class LeastKvPolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return LeastKvPolicy.NAME;
  }

  @Override
  public String description() {
    return "lowest KV-cache utilisation, random tie-break (AIBrix least-kv-cache)";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    return PolicyConfig.of(config).finish(LeastKvPolicy::new);
  }
}
