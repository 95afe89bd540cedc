package io.github.kvroute.testkit;

/** The shipped contract over {@code least-kv} with its defaults. */
class LeastKvContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "least-kv";
  }
}
