package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.github.kvroute.api.TestPolicyProviders.Aaa;
import io.github.kvroute.api.TestPolicyProviders.AvailabilityThrows;
import io.github.kvroute.api.TestPolicyProviders.DiscoverableAlpha;
import io.github.kvroute.api.TestPolicyProviders.DiscoverableBeta;
import io.github.kvroute.api.TestPolicyProviders.NameThrows;
import io.github.kvroute.api.TestPolicyProviders.NewPolicyNull;
import io.github.kvroute.api.TestPolicyProviders.NewPolicyThrows;
import io.github.kvroute.api.TestPolicyProviders.Unavailable;
import io.github.kvroute.api.TestPolicyProviders.Zzz;
import java.io.IOException;
import java.net.URL;
import java.time.Duration;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RoutingPolicyRegistryTest {
  private static final PolicyEnvironment ENV =
      PolicyEnvironment.of(() -> 0L, RandomSource.seeded(1));

  private final RoutingPolicyRegistry registry = RoutingPolicyRegistry.newRegistry();

  @Test
  void newRegistryIsEmpty() {
    assertThat(registry.policyNames()).isEmpty();
    assertThat(registry.providers()).isEmpty();
    assertThat(registry.loadErrors()).isEmpty();
  }

  @Test
  void highestPriorityWinsWhicheverIsRegisteredFirst() {
    RoutingPolicyProvider low = new Aaa("p", 3);
    RoutingPolicyProvider high = new Zzz("p", 7);
    registry.register(low);
    registry.register(high);
    RoutingPolicyRegistry reversed = RoutingPolicyRegistry.newRegistry();
    reversed.register(high);
    reversed.register(low);

    assertThat(registry.provider("p")).containsSame(high);
    assertThat(reversed.provider("p")).containsSame(high);
  }

  @Test
  void equalPriorityGoesToTheClassNameThatSortsFirstRegardlessOfOrder() {
    RoutingPolicyProvider a = new Aaa("tie", 5);
    RoutingPolicyProvider z = new Zzz("tie", 5);
    assertThat(a.getClass().getName()).isLessThan(z.getClass().getName());
    registry.register(z);
    registry.register(a);
    RoutingPolicyRegistry other = RoutingPolicyRegistry.newRegistry();
    other.register(a);
    other.register(z);

    assertThat(registry.provider("tie")).containsSame(a);
    assertThat(other.provider("tie")).containsSame(a);
  }

  @Test
  void unavailableProvidersAreSkippedWithoutAnError() {
    RoutingPolicyProvider fallback = new Aaa("p", 1);
    registry.register(new Unavailable("p", 10));
    registry.register(new Unavailable("only-unavailable", 10));
    registry.register(fallback);

    assertThat(registry.provider("p")).containsSame(fallback);
    assertThat(registry.provider("only-unavailable")).isEmpty();
    assertThat(registry.policyNames()).containsExactly("p");
    assertThat(registry.loadErrors()).isEmpty();
  }

  @Test
  void providerWhoseIsAvailableThrowsIsSkippedAndRecorded() {
    RoutingPolicyProvider fallback = new Aaa("p", 1);
    registry.register(new AvailabilityThrows("p"));
    registry.register(fallback);

    assertThat(registry.provider("p")).containsSame(fallback);
    assertThat(registry.loadErrors()).anySatisfy(e -> assertThat(e)
        .contains(AvailabilityThrows.class.getName(), "isAvailable()", "probe failed"));
  }

  @Test
  void providerWhosePolicyNameThrowsIsSkippedAndRecorded() {
    registry.register(new NameThrows());

    assertThat(registry.providers()).isEmpty();
    assertThat(registry.loadErrors()).singleElement().satisfies(e -> assertThat(e)
        .contains(NameThrows.class.getName(), "policyName()", "no name"));
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(strings = {"Bad_Name", "1abc", "", "-abc", "has space", "UPPER"})
  void invalidNamesAreRejectedIntoLoadErrors(String name) {
    registry.register(new Aaa(name, 5));

    assertThat(registry.policyNames()).isEmpty();
    assertThat(registry.loadErrors()).singleElement().satisfies(e -> assertThat(e)
        .contains(Aaa.class.getName(), "policyName " + name, "expected", "lower-case"));
  }

  @Test
  void nullNameIsRejectedIntoLoadErrors() {
    registry.register(new Aaa(null, 5));

    assertThat(registry.policyNames()).isEmpty();
    assertThat(registry.loadErrors()).singleElement().asString().contains("policyName null");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "hybrid-cost", "round-robin-2", "x9"})
  void validNamesAreAccepted(String name) {
    registry.register(new Aaa(name, 5));

    assertThat(registry.policyNames()).containsExactly(name);
    assertThat(registry.loadErrors()).isEmpty();
  }

  @Test
  void deregisterFallsBackToTheNextBest() {
    RoutingPolicyProvider best = new Aaa("p", 9);
    RoutingPolicyProvider next = new Zzz("p", 5);
    registry.register(best);
    registry.register(next);

    registry.deregister(best);
    assertThat(registry.provider("p")).containsSame(next);
    registry.deregister(next);
    assertThat(registry.provider("p")).isEmpty();
    assertThat(registry.policyNames()).isEmpty();
  }

  @Test
  void listingsAreSortedByName() {
    registry.register(new Zzz("charlie", 5));
    registry.register(new Aaa("alpha", 5));
    registry.register(new Zzz("bravo", 5));

    assertThat(registry.policyNames()).containsExactly("alpha", "bravo", "charlie");
    assertThat(registry.providers()).extracting(RoutingPolicyProvider::policyName)
        .containsExactly("alpha", "bravo", "charlie");
    assertThatThrownBy(() -> registry.policyNames().add("delta"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void newPolicyCreatesTheNamedPolicyWithItsConfig() {
    registry.register(new Aaa("p", 5));

    ConfigOrError<RoutingPolicy> policy = registry.newPolicy("p", Map.of("weight", "2.5"), ENV);

    assertThat(policy.isOk()).isTrue();
    assertThat(policy.value()).isEqualTo(new TestPolicyProviders.NamedPolicy("p", 2.5));
  }

  @Test
  void newPolicyPassesAProvidersConfigErrorThrough() {
    registry.register(new Aaa("p", 5));

    ConfigOrError<RoutingPolicy> policy = registry.newPolicy("p", Map.of("wieght", "2"), ENV);

    assertThat(policy.isOk()).isFalse();
    assertThat(policy.error()).contains("wieght: unknown option", "weight");
  }

  @Test
  void newPolicyWithUnknownNameListsTheKnownNames() {
    registry.register(new Aaa("alpha", 5));
    registry.register(new Zzz("bravo", 5));

    ConfigOrError<RoutingPolicy> policy = registry.newPolicy("nope", Map.of(), ENV);

    assertThat(policy.isOk()).isFalse();
    assertThat(policy.error()).contains("policy: nope", "expected", "[alpha, bravo]");
  }

  @Test
  void providerThatThrowsFromNewPolicyYieldsAnErrorValue() {
    registry.register(new NewPolicyThrows("p"));

    ConfigOrError<RoutingPolicy> policy = registry.newPolicy("p", Map.of(), ENV);

    assertThat(policy.isOk()).isFalse();
    assertThat(policy.error()).contains("policy p", "threw", "boom");
  }

  @Test
  void providerThatReturnsNullYieldsAnErrorValue() {
    registry.register(new NewPolicyNull("p"));

    ConfigOrError<RoutingPolicy> policy = registry.newPolicy("p", Map.of(), ENV);

    assertThat(policy.isOk()).isFalse();
    assertThat(policy.error()).contains("policy p", "null");
  }

  @Test
  void nullArgumentsAreRejected() {
    assertThatNullPointerException().isThrownBy(() -> registry.register(null))
        .withMessageContaining("provider");
    assertThatNullPointerException().isThrownBy(() -> registry.newPolicy(null, Map.of(), ENV))
        .withMessageContaining("name");
    assertThatNullPointerException().isThrownBy(() -> RoutingPolicyRegistry.load(null))
        .withMessageContaining("loader");
  }

  @Test
  void serviceLoaderDiscoversListedProvidersAndContainsBrokenEntries() {
    RoutingPolicyRegistry loaded = RoutingPolicyRegistry.load(getClass().getClassLoader());

    assertThat(loaded.policyNames()).contains("test-alpha", "test-beta")
        .doesNotContain("test-exploding");
    assertThat(loaded.provider("test-alpha")).get().isInstanceOf(DiscoverableAlpha.class);
    assertThat(loaded.provider("test-beta")).get().isInstanceOf(DiscoverableBeta.class);
    assertThat(loaded.loadErrors())
        .anySatisfy(e -> assertThat(e).contains("NoSuchProviderClass"))
        .anySatisfy(e -> assertThat(e).contains("ExplodingConstructor"));
    assertThat(loaded.newPolicy("test-alpha", Map.of(), ENV).value().name())
        .isEqualTo("test-alpha");
  }

  @Test
  void defaultRegistryIsSharedAndSeesTheClasspathProviders() {
    RoutingPolicyRegistry first = RoutingPolicyRegistry.defaultRegistry();

    assertThat(RoutingPolicyRegistry.defaultRegistry()).isSameAs(first);
    assertThat(first.policyNames()).contains("test-alpha", "test-beta");
  }

  /** A provider whose name is readable once, then throws. */
  static final class FlakyName extends RoutingPolicyProvider {
    final AtomicInteger calls = new AtomicInteger();

    @Override
    public String policyName() {
      if (calls.getAndIncrement() > 0) {
        throw new IllegalStateException("flaky");
      }
      return "flaky";
    }

    @Override
    public ConfigOrError<RoutingPolicy> newPolicy(Map<String, String> c, PolicyEnvironment e) {
      return ConfigOrError.error("x");
    }
  }

  @Test
  void aProviderWhoseNameThrowsOnTheSecondReadDoesNotEscapeFromRegister() {
    RoutingPolicyRegistry r = RoutingPolicyRegistry.newRegistry();
    assertThatNoException().isThrownBy(() -> r.register(new FlakyName()));
    assertThatNoException().isThrownBy(() -> r.register(new Aaa("ok", 5)));
  }

  @Test
  void loadFromALoaderWhoseGetResourcesFailsTerminatesWithALoadError() {
    ClassLoader broken = new ClassLoader(getClass().getClassLoader()) {
      @Override
      public Enumeration<URL> getResources(String name) throws IOException {
        throw new IOException("disk on fire");
      }
    };
    RoutingPolicyRegistry loaded = assertTimeoutPreemptively(Duration.ofSeconds(60),
        () -> RoutingPolicyRegistry.load(broken));
    assertThat(loaded.loadErrors()).isNotEmpty();
  }

  @Test
  void aTieBetweenProvidersOfOneClassGoesToTheFirstRegisteredEveryTime() {
    int firstWins = 0;
    for (int i = 0; i < 200; i++) {
      RoutingPolicyRegistry r = RoutingPolicyRegistry.newRegistry();
      RoutingPolicyProvider first = new Aaa("p", 5);
      RoutingPolicyProvider second = new Aaa("p", 5);
      r.register(first);
      r.register(second);
      if (r.provider("p").orElseThrow() == first) {
        firstWins++;
      }
    }
    assertThat(firstWins).isEqualTo(200);
  }

  @Test
  void aNullConfigValueIsNotBlamedOnTheProvider() {
    RoutingPolicyRegistry r = RoutingPolicyRegistry.newRegistry();
    r.register(new Aaa("p", 5));
    Map<String, String> m = new HashMap<>();
    m.put("weight", null);
    ConfigOrError<RoutingPolicy> p = r.newPolicy("p", m, PolicyEnvironment.system());
    assertThat(p.error()).doesNotContain("provider threw");
  }
}
