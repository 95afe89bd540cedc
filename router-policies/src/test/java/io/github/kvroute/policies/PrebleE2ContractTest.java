package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code preble-e2} with its defaults. */
class PrebleE2ContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "preble-e2";
  }
}
