package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code cache-aware} with its defaults. */
class CacheAwareContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "cache-aware";
  }
}
