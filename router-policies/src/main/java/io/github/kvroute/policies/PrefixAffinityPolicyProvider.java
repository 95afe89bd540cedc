package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.Map;

/**
 * Provides {@code prefix-affinity}.
 *
 * <p>Options: {@code prefix_tokens} (integer in [1, 1048576], default 64: tokens of the prompt that
 * form the affinity key); {@code max_imbalance} (number in [1, 1000], default 2.0: the guard sends a
 * request to the least-loaded replica when the preferred one's load exceeds this multiple of the
 * mean).
 */
public final class PrefixAffinityPolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return PrefixAffinityPolicy.NAME;
  }

  @Override
  public String description() {
    return "rendezvous hash of the first N tokens with an imbalance guard";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    PolicyConfig c = PolicyConfig.of(config);
    int prefixTokens =
        c.intIn("prefix_tokens", PrefixAffinityPolicy.DEFAULT_PREFIX_TOKENS, 1, 1 << 20);
    double maxImbalance =
        c.doubleIn("max_imbalance", PrefixAffinityPolicy.DEFAULT_MAX_IMBALANCE, 1, 1000);
    return c.finish(() -> new PrefixAffinityPolicy(prefixTokens, maxImbalance));
  }
}
