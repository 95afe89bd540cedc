package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code session-affinity} with its defaults. */
class SessionAffinityContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "session-affinity";
  }
}
