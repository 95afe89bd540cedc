package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;
import java.util.Map;

/** The shipped contract over {@code hybrid-cost} with {@code stale=exclude}. */
class HybridCostExcludeStaleContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "hybrid-cost";
  }

  @Override
  protected Map<String, String> policyConfig() {
    return Map.of("stale", "exclude");
  }
}
