package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code cache-only} with its defaults. */
class CacheOnlyContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "cache-only";
  }
}
