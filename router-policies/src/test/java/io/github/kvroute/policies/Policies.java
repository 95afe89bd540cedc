package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.api.Ticker;
import java.util.Map;

/** Creates built-in policies through the registry, as a host would. */
final class Policies {
  private Policies() {}

  static RoutingPolicy create(String name) {
    return create(name, Map.of());
  }

  static RoutingPolicy create(String name, Map<String, String> config) {
    return create(name, config, () -> 0L);
  }

  static RoutingPolicy create(String name, Map<String, String> config, Ticker ticker) {
    ConfigOrError<RoutingPolicy> p = RoutingPolicyRegistry.defaultRegistry()
        .newPolicy(name, config, PolicyEnvironment.of(ticker, RandomSource.seeded(1)));
    return p.value();
  }

  static ConfigOrError<RoutingPolicy> tryCreate(String name, Map<String, String> config) {
    return RoutingPolicyRegistry.defaultRegistry()
        .newPolicy(name, config, PolicyEnvironment.of(() -> 0L, RandomSource.seeded(1)));
  }
}
