package io.github.kvroute.testkit;

/** The shipped contract over {@code random} with its defaults. */
class RandomContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "random";
  }
}
