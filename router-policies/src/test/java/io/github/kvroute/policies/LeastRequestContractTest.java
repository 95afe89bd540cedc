package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code least-request} with its defaults. */
class LeastRequestContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "least-request";
  }
}
