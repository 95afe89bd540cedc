package io.github.kvroute.examples.custom;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The custom policy passes the shipped contract, found by name like any built-in one. */
class FewestWaitingPolicyContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "fewest-waiting";
  }
}
