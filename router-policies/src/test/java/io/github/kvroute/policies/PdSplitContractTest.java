package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code pd-split} with its defaults (cache-aware + power-of-two). */
class PdSplitContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "pd-split";
  }
}
