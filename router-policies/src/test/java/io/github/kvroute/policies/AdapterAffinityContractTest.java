package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code adapter-affinity} with its defaults. */
class AdapterAffinityContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "adapter-affinity";
  }
}
