package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.Map;

/** Provides {@code random}. Takes no options. */
public final class RandomPolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return RandomPolicy.NAME;
  }

  @Override
  public String description() {
    return "uniformly random eligible replica (SGLang, AIBrix baseline)";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    return PolicyConfig.of(config).finish(RandomPolicy::new);
  }
}
