package io.github.kvroute.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.RoutingPolicyRegistry;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every policy registered through {@code META-INF/services} runs the shipped contract: a new provider
 * without a contract subclass here fails this test.
 */
class EveryRegisteredPolicyHasAContractTest {
  private static final List<RoutingPolicyContract> CONTRACTS = List.of(
      new RoundRobinContractTest(), new HybridCostContractTest(),
      new HybridCostExcludeStaleContractTest(), new RandomContractTest(),
      new LeastRequestContractTest(), new LeastOutstandingTokensContractTest(),
      new LeastKvContractTest(), new PowerOfTwoContractTest(), new CacheOnlyContractTest(),
      new PrefixAffinityContractTest(), new CacheAwareContractTest(), new KvOverlapContractTest(),
      new KvOverlapSoftmaxContractTest(), new WeightedScoreContractTest(),
      new PrebleE2ContractTest(), new SessionAffinityContractTest(),
      new AdapterAffinityContractTest(), new AdapterAffinityCacheAwareContractTest());

  @Test
  void contractsCoverTheRegistry() {
    RoutingPolicyRegistry registry = RoutingPolicyRegistry.load(getClass().getClassLoader());
    TreeSet<String> covered = new TreeSet<>();
    CONTRACTS.forEach(c -> covered.add(c.policyName()));
    assertThat(covered).containsExactlyElementsOf(registry.policyNames());
    assertThat(registry.loadErrors()).isEmpty();
  }
}
