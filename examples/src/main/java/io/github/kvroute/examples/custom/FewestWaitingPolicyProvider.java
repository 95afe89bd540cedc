package io.github.kvroute.examples.custom;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.Map;

/**
 * Provides {@code fewest-waiting}. Option: {@code count_dispatched} ({@code true} or {@code false},
 * default {@code true}: add this router's sends since the replica's last report).
 *
 * <p>Public with a public no-argument constructor, as {@link java.util.ServiceLoader} requires; never
 * throws: a bad option comes back as {@link ConfigOrError#error}.
 */
public final class FewestWaitingPolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return FewestWaitingPolicy.NAME;
  }

  @Override
  public String description() {
    return "example: fewest requests waiting (reported + sent since), random tie-break";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    PolicyConfig c = PolicyConfig.of(config);
    boolean countDispatched = c.bool("count_dispatched", true);
    return c.finish(() -> new FewestWaitingPolicy(countDispatched));
  }
}
