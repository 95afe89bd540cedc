package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code hybrid-cost} with its defaults. */
class HybridCostContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "hybrid-cost";
  }
}
