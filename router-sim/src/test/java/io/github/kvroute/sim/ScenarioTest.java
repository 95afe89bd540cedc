package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.kvroute.sim.trace.AzureTrace;
import io.github.kvroute.sim.trace.MooncakeTrace;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScenarioTest {

  @Test
  void namedScenariosInAStableOrderWithOneLineDescriptions() {
    assertThat(Scenarios.all()).extracting(Scenario::name).containsExactly("multi-tenant",
        "hot-prefix", "rag-long-docs", "mixed-sizes", "multi-turn-chat", "stale-telemetry",
        "overload");
    for (Scenario s : Scenarios.all()) {
      assertThat(s.description()).isNotBlank().doesNotContain("\n");
      assertThat(Scenarios.named(s.name())).containsSame(s);
    }
    assertThat(Scenarios.named("nope")).isEmpty();
  }

  @Test
  void advisorScenariosAreNamedButNotInTheStandardSuite() {
    assertThat(Scenarios.advisors()).extracting(Scenario::name)
        .containsExactly("ramp-and-burst", "canary");
    Scenario s = Scenarios.named("ramp-and-burst").orElseThrow();
    assertThat(Scenarios.all()).doesNotContain(s);
    assertThat(s.description()).contains("4->26 req/s over 720 s").contains("90 s x2.5 burst");
    assertThat(s.replicas()).isEqualTo(3);
  }

  @Test
  void staleTelemetrySweepsTheDelay() {
    Scenario s = Scenarios.named("stale-telemetry").orElseThrow();
    assertThat(s.variants()).extracting(Scenario::name).containsExactly("stale-telemetry/d=0ms",
        "stale-telemetry/d=50ms", "stale-telemetry/d=250ms", "stale-telemetry/d=1000ms");
    assertThat(s.variants()).extracting(Scenario::telemetryDelayMillis)
        .containsExactly(0L, 50L, 250L, 1_000L);
    assertThat(s.variants()).allSatisfy(v -> assertThat(v.variants()).isEmpty());
    // overrides carry into the variants
    Scenario eight = s.toBuilder().replicas(8).build();
    assertThat(eight.variants()).allSatisfy(v -> assertThat(v.replicas()).isEqualTo(8));
    assertThat(Scenarios.named("multi-tenant").orElseThrow().variants()).isEmpty();
  }

  @Test
  void everyCliOverrideCanBeSetOnceMoreThroughToBuilder() {
    Scenario base = Scenarios.named("multi-tenant").orElseThrow();
    Scenario s = base.toBuilder().replicas(8).routers(3).seed(9).requests(100).rateScale(2)
        .ttftSloMillis(250).telemetryIntervalMillis(100).telemetryDelayMillis(20).build();
    assertThat(s.replicas()).isEqualTo(8);
    assertThat(s.routers()).isEqualTo(3);
    assertThat(s.seed()).isEqualTo(9);
    assertThat(s.requests()).isEqualTo(100);
    assertThat(s.rateScale()).isEqualTo(2);
    assertThat(s.ttftSloMillis()).isEqualTo(250);
    assertThat(s.telemetryIntervalMillis()).isEqualTo(100);
    assertThat(s.telemetryDelayMillis()).isEqualTo(20);
    assertThat(s.workload()).isSameAs(base.workload());
    assertThat(s.replicaModel()).hasToString(base.replicaModel().toString());
    assertThat(s.name()).isEqualTo("multi-tenant");
  }

  @Test
  void invalidValuesAreRejectedWithTheirNameAndExpectation() {
    ScenarioBuilder b = Scenario.newBuilder();
    assertThatThrownBy(() -> b.replicas(0)).hasMessage("replicas: 0 (expected: in [1, 4096])");
    assertThatThrownBy(() -> b.rateScale(0)).hasMessage("rateScale: 0.0 (expected: finite and > 0)");
    assertThatThrownBy(() -> b.telemetryIntervalMillis(0))
        .hasMessage("telemetryIntervalMillis: 0 (expected: >= 1)");
    assertThatThrownBy(() -> b.telemetryDelayMillis(-1))
        .hasMessage("telemetryDelayMillis: -1 (expected: >= 0)");
    assertThatThrownBy(() -> b.description("two\nlines"))
        .hasMessage("description: two\nlines (expected: one non-blank line)");
    assertThatThrownBy(() -> Scenario.newBuilder().name("x").build())
        .hasMessage("workload: null (expected: set before build)");
    ScenarioBuilder twice = Scenario.newBuilder().seed(1);
    assertThatThrownBy(() -> twice.seed(2)).isInstanceOf(IllegalStateException.class)
        .hasMessage("seed: already set (expected: each builder option set once)");
    Workload w = Scenarios.named("mixed-sizes").orElseThrow().workload();
    assertThatThrownBy(() -> Scenario.newBuilder().name("x").workload(w).replicas(2)
        .restarts(List.of(new Scenario.Restart(0, 2))).build())
        .hasMessage("restarts: replica 2 (expected: < replicas = 2)");
    assertThatThrownBy(() -> new Scenario.Restart(-1, 0)).hasMessage("atMillis: -1 (expected: >= 0)");
    assertThatThrownBy(() -> ReplicaModel.newBuilder().kvWatermark(1))
        .hasMessage("kvWatermark: 1.0 (expected: in [0, 1))");
    assertThatThrownBy(() -> ReplicaModel.newBuilder().decodeBaseMillis(Double.NaN))
        .hasMessage("decodeBaseMillis: NaN (expected: finite and > 0)");
  }

  @Test
  void traceScenariosUseTheTracesBlockSizeAndLength() throws Exception {
    MooncakeTrace mooncake = MooncakeTrace.read(Path.of(getClass()
        .getResource("/traces/mooncake_conversation_300.jsonl").toURI()));
    Scenario m = Scenarios.fromTrace(mooncake);
    assertThat(m.blockSizeTokens()).isEqualTo(512);
    assertThat(m.replicas()).isEqualTo(4);
    assertThat(m.requests()).isEqualTo(300);
    assertThat(m.name()).isEqualTo("mooncake:mooncake_conversation_300.jsonl");
    assertThatThrownBy(() -> m.toBuilder().blockSizeTokens(16).build())
        .hasMessage("blockSizeTokens: 16 (expected: 512, the workload's block size)");

    AzureTrace azure = AzureTrace.read(Path.of(getClass().getResource("/traces/azure_conv_300.csv")
        .toURI()));
    Scenario a = Scenarios.fromTrace(azure);
    assertThat(a.blockSizeTokens()).isEqualTo(16);
    assertThat(a.requests()).isEqualTo(300);
  }

  @Test
  void replicaModelDefaults_20MsPlus0035PerToken_8MsPlus006PerSequence() {
    ReplicaModel m = ReplicaModel.defaults();
    assertThat(m.prefillOverheadMillis()).isEqualTo(20);
    assertThat(m.prefillMillisPerToken()).isEqualTo(0.035);
    assertThat(m.maxPrefillTokensPerStep()).isEqualTo(4_096);
    assertThat(m.decodeBaseMillis()).isEqualTo(8);
    assertThat(m.decodePerSequenceMillis()).isEqualTo(0.06);
    assertThat(m.maxRunningSequences()).isEqualTo(256);
    assertThat(m.kvCapacityTokens()).isEqualTo(262_144);
    assertThat(m.kvBytesPerToken()).isEqualTo(320 * 1024);
    assertThat(m.adapterLoadMillis()).isEqualTo(800);
    assertThat(m.maxResidentAdapters()).isEqualTo(4);
    assertThat(m.coldStartMillis()).isEqualTo(30_000);
    assertThat(m.toBuilder().kvCapacityTokens(1_000).build().kvCapacityTokens()).isEqualTo(1_000);
  }
}
