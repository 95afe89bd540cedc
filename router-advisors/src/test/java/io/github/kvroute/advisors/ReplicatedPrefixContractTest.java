package io.github.kvroute.advisors;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.testkit.RoutingPolicyContract;
import java.util.Map;

/**
 * The shipped contract over {@code hot-prefix-replication} in front of {@code cache-aware}, eager to
 * replicate (a prefix of one block, promoted on 1 ms/s of recompute, evaluated every millisecond) so
 * that the replicated path is exercised too.
 */
class ReplicatedPrefixContractTest extends RoutingPolicyContract {
  @Override
  protected String policyName() {
    return ReplicatedPrefixPolicy.NAME;
  }

  @Override
  protected RoutingPolicy newPolicy(PolicyEnvironment environment) {
    ConfigOrError<RoutingPolicy> p = new ReplicatedPrefixPolicyProvider().newPolicy(Map.of(
        "prefix_tokens", "1", "promote_ms_per_s", "1", "evaluate_ms", "1"), environment);
    assertTrue(p.isOk(), () -> "policy: " + p.error());
    return p.value();
  }
}
