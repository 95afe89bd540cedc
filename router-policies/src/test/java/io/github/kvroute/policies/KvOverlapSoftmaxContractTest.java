package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;
import java.util.Map;

/** The shipped contract over {@code kv-overlap} with {@code temperature=0.7}. */
class KvOverlapSoftmaxContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "kv-overlap";
  }

  @Override
  protected Map<String, String> policyConfig() {
    return Map.of("temperature", "0.7");
  }
}
