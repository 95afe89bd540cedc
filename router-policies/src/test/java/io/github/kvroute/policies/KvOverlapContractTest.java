package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code kv-overlap} with its defaults. */
class KvOverlapContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "kv-overlap";
  }
}
