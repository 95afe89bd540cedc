package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code random} with its defaults. */
class RandomContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "random";
  }
}
