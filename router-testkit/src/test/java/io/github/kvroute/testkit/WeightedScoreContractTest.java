package io.github.kvroute.testkit;

/** The shipped contract over {@code weighted-score} with its defaults. */
class WeightedScoreContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return "weighted-score";
  }
}
