package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Every built-in provider is registered (gRPC's {@code provided()} style) and parses its options. */
class ProvidersTest {
  static Stream<Arguments> providers() {
    return Stream.of(
        Arguments.of(RoundRobinPolicyProvider.class, "round-robin"),
        Arguments.of(HybridCostPolicyProvider.class, "hybrid-cost"),
        Arguments.of(RandomPolicyProvider.class, "random"),
        Arguments.of(LeastRequestPolicyProvider.class, "least-request"),
        Arguments.of(LeastOutstandingTokensPolicyProvider.class, "least-outstanding-tokens"),
        Arguments.of(LeastKvPolicyProvider.class, "least-kv"),
        Arguments.of(PowerOfTwoPolicyProvider.class, "power-of-two"),
        Arguments.of(CacheOnlyPolicyProvider.class, "cache-only"),
        Arguments.of(PrefixAffinityPolicyProvider.class, "prefix-affinity"),
        Arguments.of(CacheAwarePolicyProvider.class, "cache-aware"),
        Arguments.of(KvOverlapPolicyProvider.class, "kv-overlap"),
        Arguments.of(WeightedScorePolicyProvider.class, "weighted-score"),
        Arguments.of(PrebleE2PolicyProvider.class, "preble-e2"),
        Arguments.of(SessionAffinityPolicyProvider.class, "session-affinity"),
        Arguments.of(AdapterAffinityPolicyProvider.class, "adapter-affinity"),
        Arguments.of(PdSplitPolicyProvider.class, "pd-split"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("providers")
  void provided(Class<? extends RoutingPolicyProvider> type, String name) {
    RoutingPolicyProvider found = null;
    for (RoutingPolicyProvider p : ServiceLoader.load(RoutingPolicyProvider.class)) {
      if (p.getClass() == type) {
        found = p;
      }
    }
    assertThat(found).as("%s listed in META-INF/services", type.getName()).isNotNull();
    assertThat(found.policyName()).isEqualTo(name);
    assertThat(found.isAvailable()).isTrue();
    assertThat(found.description()).isNotBlank();
    assertThat(RoutingPolicyRegistry.defaultRegistry().provider(name).orElseThrow())
        .isExactlyInstanceOf(type);
    ConfigOrError<RoutingPolicy> policy = found.newPolicy(Map.of(),
        PolicyEnvironment.of(() -> 0L, RandomSource.seeded(1)));
    assertThat(policy.isOk()).as(policy.error()).isTrue();
    assertThat(policy.value().name()).isEqualTo(name);
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("providers")
  void emptyCandidatesIsANoCandidatesValue(Class<? extends RoutingPolicyProvider> type, String name) {
    RoutingDecision d = Policies.create(name)
        .route(FixedRoutingContext.of(TestRequests.request(64, 1), List.of(), 1));
    assertThat(d.isRouted()).isFalse();
    assertThat(d.reason()).isEqualTo(RejectReason.NO_CANDIDATES);
  }

  @Test
  void everyRegisteredProviderIsTested() {
    List<String> tested = providers().map(a -> (String) a.get()[1]).sorted()
        .collect(Collectors.toList());
    assertThat(RoutingPolicyRegistry.defaultRegistry().policyNames()).containsExactlyElementsOf(tested);
    assertThat(RoutingPolicyRegistry.defaultRegistry().loadErrors()).isEmpty();
  }

  @ParameterizedTest(name = "{0} {1}={2}")
  @CsvSource(delimiter = '|', value = {
      "prefix-affinity  | prefix_tokens         | 0     | prefix_tokens: 0 (expected: an integer in [1, 1048576])",
      "prefix-affinity  | prefix_tokens         | lots  | prefix_tokens: lots (expected: an integer in [1, 1048576])",
      "prefix-affinity  | max_imbalance         | 0.5   | max_imbalance: 0.5 (expected: a number in [1, 1000])",
      "cache-aware      | cache_threshold       | 1.5   | cache_threshold: 1.5 (expected: a number in [0, 1])",
      "cache-aware      | cache_threshold       | high  | cache_threshold: high (expected: a number in [0, 1])",
      "cache-aware      | balance_abs_threshold | -1    | balance_abs_threshold: -1 (expected: an integer in [0, 2147483647])",
      "cache-aware      | balance_rel_threshold | 0.9   | balance_rel_threshold: 0.9 (expected: a number in [1, 1000000])",
      "kv-overlap       | overlap_score_weight  | -1    | overlap_score_weight: -1 (expected: a number in [0, 1000])",
      "kv-overlap       | temperature           | hot   | temperature: hot (expected: a number in [0, 1000])",
      "weighted-score   | prefix_weight         | -3    | prefix_weight: -3 (expected: a number in [0, 1000000])",
      "weighted-score   | queue_weight          | x     | queue_weight: x (expected: a number in [0, 1000000])",
      "weighted-score   | kv_weight             | 2e7   | kv_weight: 2e7 (expected: a number in [0, 1000000])",
      "weighted-score   | max_prefix_blocks     | 0     | max_prefix_blocks: 0 (expected: an integer in [1, 1048576])",
      "preble-e2        | window_seconds        | 0     | window_seconds: 0 (expected: an integer in [1, 86400])",
      "preble-e2        | rebalance_threshold   | 0.5   | rebalance_threshold: 0.5 (expected: a number in [1, 1000])",
      "preble-e2        | tpot_ms               | -1    | tpot_ms: -1 (expected: a number in [0, 100000])",
      "preble-e2        | rebalance             | maybe | rebalance: maybe (expected: true or false)",
      "session-affinity | ttl_seconds           | 0     | ttl_seconds: 0 (expected: an integer in [1, 2592000])",
      "session-affinity | max_sessions          | many  | max_sessions: many (expected: an integer in [1, 1000000000])",
      "adapter-affinity | delegate              | adapter-affinity | delegate: adapter-affinity (expected: one of [",
      "adapter-affinity | delegate              | nope  | delegate: nope (expected: one of [",
      "adapter-affinity | delegate.cache_threshold | 2  | unknown option",
  })
  void badValuesAreErrorsNamingKeyAndRange(String policy, String key, String value, String error) {
    ConfigOrError<RoutingPolicy> p = Policies.tryCreate(policy, Map.of(key, value));
    assertThat(p.isOk()).isFalse();
    assertThat(p.error()).contains(error);
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("providers")
  void unknownKeysAreRejected(Class<? extends RoutingPolicyProvider> type, String name) {
    ConfigOrError<RoutingPolicy> p = Policies.tryCreate(name, Map.of("no_such_option", "1"));
    assertThat(p.isOk()).isFalse();
    assertThat(p.error()).startsWith("no_such_option: unknown option (expected: one of [");
  }

  @Test
  void adapterAffinityPassesDelegateOptionsThrough() {
    ConfigOrError<RoutingPolicy> ok = Policies.tryCreate("adapter-affinity",
        Map.of("delegate", "cache-aware", "delegate.cache_threshold", "0.5"));
    assertThat(ok.isOk()).as(ok.error()).isTrue();
    assertThat(((AdapterAffinityPolicy) ok.value()).delegate().name()).isEqualTo("cache-aware");
    ConfigOrError<RoutingPolicy> bad = Policies.tryCreate("adapter-affinity",
        Map.of("delegate", "cache-aware", "delegate.cache_threshold", "2"));
    assertThat(bad.error())
        .isEqualTo("delegate.cache_threshold: 2 (expected: a number in [0, 1])");
    ConfigOrError<RoutingPolicy> unknown = Policies.tryCreate("adapter-affinity",
        Map.of("delegate.bogus", "1"));
    assertThat(unknown.error()).startsWith("delegate.bogus: unknown option");
  }
}
