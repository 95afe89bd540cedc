package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.Map;

/**
 * Provides {@code weighted-score} (llm-d's default profile), with llm-d's default weights.
 *
 * <p>Options: {@code prefix_weight} (default 3), {@code queue_weight} (default 2), {@code kv_weight}
 * (default 2), each a number in [0, 1000000]; {@code max_prefix_blocks} (integer in [1, 1048576],
 * default 256: prompt blocks the prefix scorer considers, llm-d's {@code maxPrefixBlocksToMatch}).
 */
public final class WeightedScorePolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return WeightedScorePolicy.NAME;
  }

  @Override
  public String description() {
    return "llm-d default profile: 3 x prefix + 2 x queue + 2 x kv-utilisation, max score";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    PolicyConfig c = PolicyConfig.of(config);
    double prefix = c.doubleIn("prefix_weight", WeightedScorePolicy.DEFAULT_PREFIX_WEIGHT, 0, 1e6);
    double queue = c.doubleIn("queue_weight", WeightedScorePolicy.DEFAULT_QUEUE_WEIGHT, 0, 1e6);
    double kv = c.doubleIn("kv_weight", WeightedScorePolicy.DEFAULT_KV_WEIGHT, 0, 1e6);
    int maxBlocks = c.intIn("max_prefix_blocks", WeightedScorePolicy.DEFAULT_MAX_PREFIX_BLOCKS, 1,
        1 << 20);
    return c.finish(() -> new WeightedScorePolicy(prefix, queue, kv, maxBlocks));
  }
}
