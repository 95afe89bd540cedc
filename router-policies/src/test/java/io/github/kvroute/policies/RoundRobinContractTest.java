package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code round-robin} with its defaults. */
class RoundRobinContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "round-robin";
  }
}
