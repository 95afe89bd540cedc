package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URL;
import java.time.Duration;
import java.util.Enumeration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** Regressions for defects found while testing the API (each failed before its fix). */
class ApiRegressionTest {
  private static Request base() {
    return Request.newBuilder().id("req-1").model("llama").modelVersion("v1").prompt(PromptKey.unhashed(10))
        .ttftBudget(Duration.ofMillis(500)).expectedOutputTokens(10).build();
  }

  @Test
  void toBuilderAllowsSettingModelOnceMore() {
    Request r = base().toBuilder().model("other").build();
    assertThat(r.model()).isEqualTo("other");
  }

  @Test
  void toBuilderAllowsSettingTtftBudgetOnceMore() {
    Request r = base().toBuilder().ttftBudget(Duration.ofMillis(100)).build();
    assertThat(r.ttftBudget()).contains(Duration.ofMillis(100));
  }

  @Test
  void toBuilderAllowsSettingIdOnceMore() {
    assertThat(base().toBuilder().id("req-2").build().id()).isEqualTo("req-2");
  }

  @Test
  void candidateViewBuilderReusedAfterChangingIdGivesMatchingSnapshot() {
    CandidateView.Builder b = CandidateView.newBuilder().replicaId("a");
    b.build();
    CandidateView second = b.replicaId("b").epoch(5).build();
    assertThat(second.snapshot().replicaId()).isEqualTo(second.replicaId());
    assertThat(second.snapshot().epoch()).isEqualTo(second.epoch());
  }

  static final class FlakyName extends RoutingPolicyProvider {
    final AtomicInteger calls = new AtomicInteger();
    @Override public String policyName() {
      if (calls.getAndIncrement() > 0) {
        throw new IllegalStateException("flaky");
      }
      return "flaky";
    }
    @Override public ConfigOrError<RoutingPolicy> newPolicy(Map<String, String> c, PolicyEnvironment e) {
      return ConfigOrError.error("x");
    }
  }

  @Test
  void flakyPolicyNameDoesNotEscapeFromRegister() {
    RoutingPolicyRegistry r = RoutingPolicyRegistry.newRegistry();
    assertThatNoException().isThrownBy(() -> r.register(new FlakyName()));
    assertThatNoException().isThrownBy(() -> r.register(new TestPolicyProviders.Aaa("ok", 5)));
  }

  @Test
  void loadFromALoaderWhoseGetResourcesFailsTerminates() {
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
  void sameClassTieIsDeterministic() {
    int firstWins = 0;
    for (int i = 0; i < 200; i++) {
      RoutingPolicyRegistry r = RoutingPolicyRegistry.newRegistry();
      RoutingPolicyProvider first = new TestPolicyProviders.Aaa("p", 5);
      RoutingPolicyProvider second = new TestPolicyProviders.Aaa("p", 5);
      r.register(first);
      r.register(second);
      if (r.provider("p").orElseThrow() == first) firstWins++;
    }
    assertThat(firstWins).as("first-registered wins, every time").isEqualTo(200);
  }

  @Test
  void rejectionsCarryNoCost() {
    RoutingDecision d = RoutingDecision.rejected(RejectReason.POLICY, "x", null);
    assertThatThrownBy(() -> d.withCost(CostBreakdown.of("q", 1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("rejected");
    assertThat(d.cost().isEmpty()).isTrue();
  }

  @Test
  void costToStringIsLocaleIndependent() {
    Locale old = Locale.getDefault();
    try {
      Locale.setDefault(Locale.GERMANY);
      assertThat(CostBreakdown.of("queue", 100.0).toString()).contains("100.0");
    } finally {
      Locale.setDefault(old);
    }
  }

  @Test
  void canServeAdapterNullIsAClearError() {
    ReplicaSnapshot s = ReplicaSnapshot.newBuilder().replicaId("r").model("m").build();
    assertThatThrownBy(() -> s.canServeAdapter(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("adapter: null");
  }

  @Test
  void kvCapacityOverflow() {
    ReplicaSnapshot s = ReplicaSnapshot.newBuilder().replicaId("r").model("m").kvBlocks(0, Long.MAX_VALUE / 2).kvBlockSizeTokens(16).build();
    assertThat(s.kvCapacityTokens().getAsLong()).isPositive();
  }

  @Test
  void nullConfigValueIsNotBlamedOnProvider() {
    RoutingPolicyRegistry r = RoutingPolicyRegistry.newRegistry();
    r.register(new TestPolicyProviders.Aaa("p", 5));
    java.util.HashMap<String, String> m = new java.util.HashMap<>();
    m.put("weight", null);
    ConfigOrError<RoutingPolicy> p = r.newPolicy("p", m, PolicyEnvironment.system());
    assertThat(p.error()).doesNotContain("provider threw");
  }
}
