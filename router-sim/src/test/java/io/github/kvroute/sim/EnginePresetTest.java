package io.github.kvroute.sim;

import static io.github.kvroute.sim.SimFixtures.oneReplica;
import static io.github.kvroute.sim.SimFixtures.runRecorded;
import static io.github.kvroute.sim.SimFixtures.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each engine preset against the figures docs/engines.md cites: vLLM's latency benchmark as vLLM's
 * performance dashboard measured it on H100, and the arithmetic from the model's size and the GPU's
 * specification (prefill of an 8k and a 64k prompt, decode steps at batch 1 and 64, short and long
 * contexts), each reproduced by the simulated engine within 10%.
 */
class EnginePresetTest {
  private static EnginePreset preset(String name) {
    return EnginePreset.named(name).orElseThrow();
  }

  /** vLLM benchmark_latency: batch 8, 32 prompt tokens, 128 output tokens, end-to-end latency. */
  @ParameterizedTest(name = "{0}: {1} ms")
  @CsvSource({"llama3-8b-h100, 997.542", "llama3-70b-tp4-h100, 2444.47"})
  void vllmsLatencyBenchmarkTakesWhatVllmMeasured(String name, double measuredMillis) {
    List<SimRequest> batch = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      batch.add(unique("r" + i, 0, 32, 10 + i, 128));
    }

    var run = runRecorded(oneReplica(batch, preset(name).replicaModel()).build(), "round-robin");

    double slowest = run.records().values().stream().mapToLong(RequestRecord::e2eNanos).max()
        .orElseThrow() / 1e6;
    assertThat(slowest).isCloseTo(measuredMillis, withPercentage(10));
  }

  /** The arithmetic figures of docs/engines.md, a lone prompt on an idle replica until its first token. */
  @ParameterizedTest(name = "{0}: {1} tokens in {2} ms")
  @CsvSource({
      "llama3-8b-h100, 8192, 303.2",
      "llama3-8b-h100, 65536, 4094.6",
      "llama3-70b-tp4-h100, 8192, 640.3",
      "llama3-70b-tp4-h100, 65536, 7203.2"})
  void aLonePromptPrefillsInTheCitedTime(String name, int tokens, double citedMillis) {
    ReplicaModel model = preset(name).replicaModel();

    var run = runRecorded(oneReplica(List.of(unique("a", 0, tokens, 1, 1)), model).build(),
        "round-robin");

    double ttft = run.get("a").ttftNanos() / 1e6;
    assertThat(ttft).isCloseTo(citedMillis, withPercentage(10))
        .isCloseTo(model.lonePrefillMillis(tokens), withPercentage(0.01));
  }

  @ParameterizedTest(name = "{0}: batch {1}, {2} tokens each: {3} ms")
  @CsvSource({
      "llama3-8b-h100, 1, 1024, 7.51",
      "llama3-8b-h100, 1, 32768, 8.75",
      "llama3-8b-h100, 64, 1024, 12.08",
      "llama3-8b-h100, 64, 4096, 19.77",
      "llama3-70b-tp4-h100, 1, 1024, 18.46",
      "llama3-70b-tp4-h100, 1, 32768, 19.24",
      "llama3-70b-tp4-h100, 64, 1024, 24.54",
      "llama3-70b-tp4-h100, 64, 4096, 29.34"})
  void decodeStepsTakeTheCitedTime(String name, int batch, long contextEach, double citedMillis) {
    ReplicaModel model = preset(name).replicaModel();

    assertThat(model.decodeStepMillis(batch, batch * contextEach))
        .isCloseTo(citedMillis, withPercentage(10));
  }

  @Test
  void llama70bStepsMatchVllmsMeasuredInterTokenLatencyAtLowLoad() {
    // vLLM performance dashboard, serving_llama70B_tp4_sharegpt_qps_1 on H100: mean ITL 19.39 ms
    // (ShareGPT at 1 req/s: one or two sequences of a few hundred tokens in the batch)
    assertThat(preset("llama3-70b-tp4-h100").replicaModel().decodeStepMillis(2, 1_200))
        .isCloseTo(19.39, withPercentage(10));
  }

  @Test
  void kvCapacityIsTheMemoryLeftAfterWeightsOverTheBytesPerToken() {
    // 8B: 32 layers x 8 KV heads x 128 x 2 x 2 B = 128 KiB; (0.9 x 80 GB - 2 GB - 16.06 GB) / 128 KiB
    assertThat(preset("llama3-8b-h100").kvBytesPerToken()).isEqualTo(131_072);
    assertThat(preset("llama3-8b-h100").kvCapacityTokens()).isEqualTo(411_520);
    // 70B on 4 GPUs: 80 layers -> 320 KiB; (4 x (72 GB - 2 GB) - 141.2 GB) / 320 KiB
    assertThat(preset("llama3-70b-tp4-h100").kvBytesPerToken()).isEqualTo(327_680);
    assertThat(preset("llama3-70b-tp4-h100").kvCapacityTokens()).isEqualTo(423_568);
    assertThat(preset("llama3-70b-tp4-h100").replicaModel().kvCapacityTokens()).isEqualTo(423_568);
  }

  @Test
  void batchLimitsAreVllmsDefaultsForH100() {
    for (EnginePreset p : EnginePreset.all()) {
      assertThat(p.replicaModel().maxRunningSequences()).as(p.name()).isEqualTo(1_024);
      assertThat(p.replicaModel().maxPrefillTokensPerStep()).as(p.name()).isEqualTo(8_192);
    }
  }

  @Test
  void attentionMakesLongPromptsCostMoreThanLinearly() {
    ReplicaModel m = EnginePreset.defaultPreset().replicaModel();

    assertThat(m.lonePrefillMillis(65_536)).isGreaterThan(1.5 * 8 * m.lonePrefillMillis(8_192));
    assertThat(m.decodeStepMillis(64, 64 * 4_096)).isGreaterThan(m.decodeStepMillis(64, 64 * 1_024))
        .isGreaterThan(m.decodeStepMillis(1, 1_024));
  }

  @Test
  void theDefaultIsListedFirstAndUnknownNamesAreEmpty() {
    assertThat(EnginePreset.all().get(0).name()).isEqualTo(EnginePreset.DEFAULT_NAME);
    assertThat(EnginePreset.named("nope")).isEmpty();
    assertThat(Scenario.newBuilder().name("x").workload(Workload.fixed(List.of(unique("a", 0, 10, 1,
        1)))).build().replicaModel()).isSameAs(EnginePreset.defaultPreset().replicaModel());
  }

  @Test
  void aScenarioKvCapacityReplacesTheEngines_andSurvivesAnEngineChange() {
    Scenario s = Scenario.newBuilder().name("x").workload(Workload.fixed(List.of(unique("a", 0, 10, 1,
        1)))).kvCapacityTokens(7_168).build();
    Scenario on70b = s.toBuilder().engine(preset("llama3-70b-tp4-h100")).build();

    assertThat(s.replicaModel().kvCapacityTokens()).isEqualTo(7_168);
    assertThat(on70b.replicaModel().kvCapacityTokens()).isEqualTo(7_168);
    assertThat(on70b.replicaModel().decodeBaseMillis())
        .isEqualTo(preset("llama3-70b-tp4-h100").replicaModel().decodeBaseMillis());
  }
}
