package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;
import java.util.Map;

/** The shipped contract over {@code adapter-affinity} with {@code delegate=cache-aware}. */
class AdapterAffinityCacheAwareContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "adapter-affinity";
  }

  @Override
  protected Map<String, String> policyConfig() {
    return Map.of("delegate", "cache-aware");
  }
}
