package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code least-kv} with its defaults. */
class LeastKvContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "least-kv";
  }
}
