package io.github.kvroute.testkit;

/** The shipped contract over {@code adapter-affinity} with its defaults. */
class AdapterAffinityContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "adapter-affinity";
  }
}
