package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code least-outstanding-tokens} with its defaults. */
class LeastOutstandingTokensContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "least-outstanding-tokens";
  }
}
