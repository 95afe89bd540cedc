package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import io.github.kvroute.api.RoutingPolicyRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Provides {@code adapter-affinity}, a filter in front of another registered policy.
 *
 * <p>Options: {@code delegate} (a policy name in the router's registry,
 * {@link PolicyEnvironment#registry()}, other than {@code adapter-affinity}; default
 * {@code least-request}); every option {@code delegate.KEY} is passed to the delegate as {@code KEY},
 * for example {@code delegate=cache-aware, delegate.cache_threshold=0.5}.
 */
public final class AdapterAffinityPolicyProvider extends RoutingPolicyProvider {
  static final String PREFIX = "delegate.";

  @Override
  public String policyName() {
    return AdapterAffinityPolicy.NAME;
  }

  @Override
  public String description() {
    return "LoRA affinity: replicas holding the request's adapter, then the delegate policy";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    Map<String, String> own = new HashMap<>();
    Map<String, String> forDelegate = new HashMap<>();
    config.forEach((k, v) -> {
      if (k.startsWith(PREFIX)) {
        forDelegate.put(k.substring(PREFIX.length()), v);
      } else {
        own.put(k, v);
      }
    });
    PolicyConfig c = PolicyConfig.of(own);
    RoutingPolicyRegistry registry = environment.registry();
    Set<String> allowed = new TreeSet<>(registry.policyNames());
    allowed.remove(AdapterAffinityPolicy.NAME);
    String name = c.oneOf("delegate", LeastRequestPolicy.NAME, allowed);
    ConfigOrError<String> parsed = c.finish(() -> name);
    if (!parsed.isOk()) {
      return ConfigOrError.error(parsed.error());
    }
    ConfigOrError<RoutingPolicy> delegate = registry.newPolicy(name, forDelegate, environment);
    if (!delegate.isOk()) {
      // name the keys as the host wrote them: delegate.KEY
      return ConfigOrError.error(PREFIX + delegate.error().replace("; ", "; " + PREFIX));
    }
    return ConfigOrError.of(new AdapterAffinityPolicy(delegate.value()));
  }
}
