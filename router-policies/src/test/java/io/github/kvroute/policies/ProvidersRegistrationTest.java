package io.github.kvroute.policies;

import io.github.kvroute.api.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.fail;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.core.Router;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The built-in providers are found through ServiceLoader and report bad options as values. */
class ProvidersRegistrationTest {
  private static final PolicyEnvironment ENV =
      PolicyEnvironment.of(new ManualTicker(), RandomSource.seeded(1));

  private final RoutingPolicyRegistry registry =
      RoutingPolicyRegistry.load(getClass().getClassLoader());

  @Test
  void registryLoadedFromACleanClassLoaderFindsBothPoliciesByName() {
    assertThat(registry.policyNames()).contains("round-robin", "hybrid-cost");
    assertThat(registry.provider("round-robin")).get().isInstanceOf(RoundRobinPolicyProvider.class);
    assertThat(registry.provider("hybrid-cost")).get().isInstanceOf(HybridCostPolicyProvider.class);
    assertThat(registry.loadErrors()).isEmpty();
  }

  /** gRPC's {@code provided()} test: the provider is listed in META-INF/services. */
  @ParameterizedTest
  @ValueSource(classes = {RoundRobinPolicyProvider.class, HybridCostPolicyProvider.class})
  void provided(Class<?> providerClass) {
    for (RoutingPolicyProvider p :
        ServiceLoader.load(RoutingPolicyProvider.class, getClass().getClassLoader())) {
      if (p.getClass() == providerClass) {
        return;
      }
    }
    fail("ServiceLoader unable to load " + providerClass.getName());
  }

  static Stream<Arguments> providers() {
    return Stream.of(Arguments.of(new RoundRobinPolicyProvider(), "round-robin"),
        Arguments.of(new HybridCostPolicyProvider(), "hybrid-cost"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("providers")
  void providerIsAvailableAtTheDefaultPriorityAndBuildsItsPolicy(
      RoutingPolicyProvider provider, String name) {
    ConfigOrError<RoutingPolicy> policy = provider.newPolicy(Map.of(), ENV);

    assertThat(provider.policyName()).isEqualTo(name);
    assertThat(provider.isAvailable()).isTrue();
    assertThat(provider.priority()).isEqualTo(5);
    assertThat(provider.description()).isNotBlank();
    assertThat(policy.isOk()).as(policy.error()).isTrue();
    assertThat(policy.value().name()).isEqualTo(name);
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("providers")
  void eachNewPolicyCallBuildsAFreshInstance(RoutingPolicyProvider provider, String name) {
    assertThat(provider.newPolicy(Map.of(), ENV).value())
        .isNotSameAs(provider.newPolicy(Map.of(), ENV).value());
  }

  static Stream<Arguments> badOptions() {
    String hybridKeys =
        "[externality, kv_pressure_weight, kv_weight, load_bound, load_weight, prefill_weight,"
            + " queue_weight, risk_weight, saturation_ms, shed_new_prefixes, stale, stay_ratio,"
            + " step_weight, tie_order_ms, transfer_weight]";
    return Stream.of(
        Arguments.of("hybrid-cost", Map.of("queue_weight", "200"),
            "queue_weight: 200 (expected: a number in [0, 100])"),
        Arguments.of("hybrid-cost", Map.of("prefill_weight", "-1"),
            "prefill_weight: -1 (expected: a number in [0, 100])"),
        Arguments.of("hybrid-cost", Map.of("risk_weight", "high"),
            "risk_weight: high (expected: a number in [0, 100])"),
        Arguments.of("hybrid-cost", Map.of("shed_new_prefixes", "maybe"),
            "shed_new_prefixes: maybe (expected: true or false)"),
        Arguments.of("hybrid-cost", Map.of("load_bound", "0.5"),
            "load_bound: 0.5 (expected: 0 (off) or a number in [1, 100])"),
        Arguments.of("hybrid-cost", Map.of("saturation_ms", "-5"),
            "saturation_ms: -5 (expected: a number in [0, 3600000])"),
        Arguments.of("hybrid-cost", Map.of("tie_order_ms", "1.5"),
            "tie_order_ms: 1.5 (expected: an integer in [0, 86400000])"),
        Arguments.of("hybrid-cost", Map.of("tie_order_ms", "-1"),
            "tie_order_ms: -1 (expected: an integer in [0, 86400000])"),
        Arguments.of("hybrid-cost", Map.of("stay_ratio", "0.5"),
            "stay_ratio: 0.5 (expected: 0 (off) or a number in [1, 100])"),
        Arguments.of("hybrid-cost", Map.of("stay_ratio", "101"),
            "stay_ratio: 101 (expected: a number in [0, 100])"),
        Arguments.of("hybrid-cost", Map.of("stale", "sometimes"),
            "stale: sometimes (expected: one of [exclude, penalize])"),
        Arguments.of("hybrid-cost", Map.of("queue_wieght", "2"),
            "queue_wieght: unknown option (expected: one of " + hybridKeys + ")"),
        Arguments.of("round-robin", Map.of("queue_weight", "1"),
            "queue_weight: unknown option (expected: one of [])"));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("badOptions")
  void badOptionsAreAnErrorValueNamingTheKeyAndTheExpectedRange(
      String policy, Map<String, String> config, String error) {
    ConfigOrError<RoutingPolicy> created = registry.newPolicy(policy, config, ENV);

    assertThat(created.isOk()).isFalse();
    assertThat(created.error()).isEqualTo(error);
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    ConfigOrError<RoutingPolicy> created = registry.newPolicy("hybrid-cost",
        Map.of("queue_weight", "200", "stale", "sometimes"), ENV);

    assertThat(created.error()).isEqualTo("queue_weight: 200 (expected: a number in [0, 100]); "
        + "stale: sometimes (expected: one of [exclude, penalize])");
  }

  @Test
  void validOptionsAreAccepted() {
    ConfigOrError<RoutingPolicy> created = registry.newPolicy("hybrid-cost",
        Map.of("queue_weight", "2", "prefill_weight", "0.5", "kv_weight", "0", "stale", "exclude"),
        ENV);

    assertThat(created.isOk()).as(created.error()).isTrue();
  }

  @Test
  void theRouterBuilderTurnsABadOptionIntoAnIllegalArgumentNamingIt() {
    Router.Builder b = Router.newBuilder().registry(registry)
        .policy("hybrid-cost", Map.of("queue_weight", "200"));

    assertThatIllegalArgumentException().isThrownBy(b::build)
        .withMessage("queue_weight: 200 (expected: a number in [0, 100])");
  }

  @Test
  void theRouterBuilderResolvesBuiltInPoliciesByName() {
    assertThat(Router.newBuilder().registry(registry).policy("round-robin").build().policyName())
        .isEqualTo("round-robin");
    assertThat(Router.newBuilder().registry(registry).build().policyName())
        .as("the default").isEqualTo("hybrid-cost");
  }

  @Test
  void unknownPolicyNamesTheKnownOnes() {
    ConfigOrError<RoutingPolicy> created = registry.newPolicy("nope", Map.of(), ENV);

    assertThat(created.error()).startsWith("policy: nope (expected: one of [")
        .contains("hybrid-cost", "round-robin");
  }
}
