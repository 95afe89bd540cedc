package io.github.kvroute.testkit;

/** The shipped contract over {@code session-affinity} with its defaults. */
class SessionAffinityContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "session-affinity";
  }
}
