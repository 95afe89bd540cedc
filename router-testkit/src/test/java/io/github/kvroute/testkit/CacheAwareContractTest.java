package io.github.kvroute.testkit;

/** The shipped contract over {@code cache-aware} with its defaults. */
class CacheAwareContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "cache-aware";
  }
}
