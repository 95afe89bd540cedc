package io.github.kvroute.testkit;

/** The shipped contract over {@code cache-only} with its defaults. */
class CacheOnlyContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "cache-only";
  }
}
