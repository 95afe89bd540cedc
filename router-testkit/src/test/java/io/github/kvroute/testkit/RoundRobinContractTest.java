package io.github.kvroute.testkit;

/** The shipped contract over {@code round-robin} with its defaults. */
class RoundRobinContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "round-robin";
  }
}
