package io.github.kvroute.testkit;

/** The shipped contract over {@code hybrid-cost} with its defaults. */
class HybridCostContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "hybrid-cost";
  }
}
