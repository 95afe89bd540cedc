package io.github.kvroute.testkit;

/** The shipped contract over {@code kv-overlap} with its defaults. */
class KvOverlapContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "kv-overlap";
  }
}
