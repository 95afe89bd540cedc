package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.RoutingPolicyRegistry;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Every policy registered through {@code META-INF/services} runs the shipped contract: a new provider
 * without a contract subclass beside it fails this test.
 */
class EveryRegisteredPolicyHasAContractTest {
  private static final List<Supplier<String>> CONTRACTS = List.of(
      new RoundRobinContractTest()::policyName,
      new HybridCostContractTest()::policyName,
      new HybridCostExcludeStaleContractTest()::policyName,
      new RandomContractTest()::policyName,
      new LeastRequestContractTest()::policyName,
      new LeastOutstandingTokensContractTest()::policyName,
      new LeastKvContractTest()::policyName,
      new PowerOfTwoContractTest()::policyName,
      new CacheOnlyContractTest()::policyName,
      new PrefixAffinityContractTest()::policyName,
      new CacheAwareContractTest()::policyName,
      new KvOverlapContractTest()::policyName,
      new KvOverlapSoftmaxContractTest()::policyName,
      new WeightedScoreContractTest()::policyName,
      new PrebleE2ContractTest()::policyName,
      new SessionAffinityContractTest()::policyName,
      new AdapterAffinityContractTest()::policyName,
      new AdapterAffinityCacheAwareContractTest()::policyName,
      new PdSplitContractTest()::policyName);

  @Test
  void contractsCoverTheRegistry() {
    RoutingPolicyRegistry registry = RoutingPolicyRegistry.load(getClass().getClassLoader());
    TreeSet<String> covered = new TreeSet<>();
    CONTRACTS.forEach(c -> covered.add(c.get()));
    assertThat(covered).containsExactlyElementsOf(registry.policyNames());
    assertThat(registry.loadErrors()).isEmpty();
  }
}
