package io.github.kvroute.policies;

import io.github.kvroute.testkit.RoutingPolicyContract;

/** The shipped contract over {@code weighted-score} with its defaults. */
class WeightedScoreContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "weighted-score";
  }
}
