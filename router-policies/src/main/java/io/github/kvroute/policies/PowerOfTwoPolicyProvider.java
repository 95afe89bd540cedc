package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.Map;

/** Provides {@code power-of-two}. Takes no options. */
public final class PowerOfTwoPolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return PowerOfTwoPolicy.NAME;
  }

  @Override
  public String description() {
    return "two random candidates, the less loaded wins (SGLang/SMG power_of_two)";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    return PolicyConfig.of(config).finish(PowerOfTwoPolicy::new);
  }
}
