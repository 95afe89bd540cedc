package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.Map;

/**
 * Provides {@code kv-overlap} (NVIDIA Dynamo's KV router cost), with Dynamo's defaults.
 *
 * <p>Options: {@code overlap_score_weight} (number in [0, 1000], default 1.0: weight of the blocks to
 * prefill against the blocks active for decode; 0 ignores the cache); {@code temperature} (number in
 * [0, 1000], default 0: 0 picks the least cost, higher values sample more evenly).
 */
public final class KvOverlapPolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return KvOverlapPolicy.NAME;
  }

  @Override
  public String description() {
    return "Dynamo KV router: weight x prefill blocks + decode blocks, argmin or softmax";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    PolicyConfig c = PolicyConfig.of(config);
    double weight = c.doubleIn("overlap_score_weight", 1.0, 0, 1000);
    double temperature = c.doubleIn("temperature", 0.0, 0, 1000);
    return c.finish(() -> new KvOverlapPolicy(weight, temperature));
  }
}
