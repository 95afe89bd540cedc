package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code prefix-affinity} with its defaults. */
class PrefixAffinityContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "prefix-affinity";
  }
}
