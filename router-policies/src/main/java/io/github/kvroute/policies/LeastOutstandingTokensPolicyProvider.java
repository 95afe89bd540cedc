package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.Map;

/** Provides {@code least-outstanding-tokens}. Takes no options. */
public final class LeastOutstandingTokensPolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return LeastOutstandingTokensPolicy.NAME;
  }

  @Override
  public String description() {
    return "least prompt + remaining output tokens in flight";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    return PolicyConfig.of(config).finish(LeastOutstandingTokensPolicy::new);
  }
}
