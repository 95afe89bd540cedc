package io.github.kvroute.testkit;

/** The shipped contract over {@code power-of-two} with its defaults. */
class PowerOfTwoContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "power-of-two";
  }
}
