package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.Map;

/** Provides {@code least-request}. Takes no options. */
public final class LeastRequestPolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return LeastRequestPolicy.NAME;
  }

  @Override
  public String description() {
    return "fewest in-flight requests from this router, random tie-break (AIBrix, Envoy)";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    return PolicyConfig.of(config).finish(LeastRequestPolicy::new);
  }
}
