package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code power-of-two} with its defaults. */
class PowerOfTwoContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "power-of-two";
  }
}
