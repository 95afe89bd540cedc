package io.github.kvroute.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.advisors.WorkerThroughput;
import io.github.kvroute.advisors.WorkloadProfile;
import io.github.kvroute.sim.EnginePreset;
import io.github.kvroute.sim.ReplicaModel;
import io.github.kvroute.sim.trace.AzureTrace;
import io.github.kvroute.sim.trace.MooncakeTrace;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kvroute-sim plan}: the worked sizing on the command line, and what it measures. */
class PlanCommandTest {
  @TempDir
  Path dir;

  @Test
  void theWorkedExamplePrintsFourPrefillAndThreeDecodeWorkersAndItsAssumptions() {
    CliRun r = CliRun.of("plan", "--rps", "4", "--input-tokens", "8000", "--output-tokens", "500",
        "--prefill-tokens-per-second", "10000", "--decode-tokens-per-second", "800",
        "--target-utilization", "1");

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("""
        pool       work (workers)  minimum  planned (100%)
        prefill              3.20        4               4
        decode               2.50        3               3
        colocated            5.70        6               6
        """).contains("prefill work 32000 uncached tokens/s over 10000 tokens/s per worker")
        .contains("worker throughput from: measured (given)");
  }

  @Test
  void aTracesRateLengthsAndUnboundedHitRateAreMeasured() throws IOException {
    // 3 requests over 200 s (Mooncake spreads each within its 3 s timestamp bucket); the second
    // repeats the first's leading block, the third both of the second's
    String jsonl = """
        {"timestamp": 0, "input_length": 1024, "output_length": 100, "hash_ids": [1, 2]}
        {"timestamp": 100000, "input_length": 1024, "output_length": 200, "hash_ids": [1, 3]}
        {"timestamp": 200000, "input_length": 800, "output_length": 300, "hash_ids": [1, 3]}
        """;
    WorkloadProfile p = PlanInputs.profile(MooncakeTrace.read(new StringReader(jsonl), "t.jsonl"));

    // each arrival is spread within its bucket, so the measured rate is only about 2 / 200 s
    assertThat(p.requestsPerSecond()).isBetween(0.005, 0.03);
    assertThat(p.meanInputTokens()).isCloseTo(2_848 / 3.0, within(1e-9));
    assertThat(p.meanOutputTokens()).isCloseTo(200, within(1e-9));
    // hits: 0 + 512 + min(1024, 800) = 1,312 of 2,848 prompt tokens
    assertThat(p.prefixHitRate()).isCloseTo(1_312 / 2_848.0, within(1e-9));
  }

  @Test
  void aTraceWithExactTimestampsGivesItsExactRateAndNoHits() throws IOException {
    String csv = AzureTrace.HEADER + """

        2023-11-16 18:15:46.0000000,1000,100
        2023-11-16 18:15:46.5000000,3000,300
        2023-11-16 18:15:47.0000000,2000,200
        """;
    WorkloadProfile p = PlanInputs.profile(AzureTrace.read(new StringReader(csv), "t.csv"));

    // 2 intervals in 1 s
    assertThat(p.requestsPerSecond()).isCloseTo(2.0, within(1e-9));
    assertThat(p.meanInputTokens()).isCloseTo(2_000, within(1e-9));
    assertThat(p.prefixHitRate()).isZero();
  }

  @Test
  void anEnginesThroughputComesFromTheStepModel() {
    EnginePreset engine = EnginePreset.defaultPreset();
    ReplicaModel m = engine.replicaModel();

    WorkerThroughput t = PlanInputs.throughput(engine, 8_000, 8_000, 500, 50);

    assertThat(t.prefillTokensPerSecond())
        .isCloseTo(8_000 / m.lonePrefillMillis(8_000) * 1e3, within(1e-6));
    // the largest batch within 50 ms whose 8,250-token contexts fit the KV cache
    int fitting = (int) (m.kvCapacityTokens() / 8_250);
    assertThat(m.decodeStepMillis(fitting, fitting * 8_250L)).isLessThanOrEqualTo(50);
    assertThat(t.decodeTokensPerSecond())
        .isCloseTo(fitting / m.decodeStepMillis(fitting, fitting * 8_250L) * 1e3, within(1e-6));
    assertThat(t.source()).contains("llama3-8b-h100").contains("batch capped by KV capacity");
  }

  @Test
  void planFromATraceFileSaysItsHitRateIsAnUpperBound() throws IOException {
    Path trace = dir.resolve("t.jsonl");
    Files.writeString(trace, """
        {"timestamp": 0, "input_length": 1024, "output_length": 100, "hash_ids": [1, 2]}
        {"timestamp": 1000, "input_length": 1024, "output_length": 200, "hash_ids": [1, 3]}
        """);

    CliRun r = CliRun.of("plan", "--trace", "mooncake:" + trace);

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("unbounded cache").contains("prefix hit rate 25.0%")
        .contains("the simulator's step model of llama3-8b-h100");
  }

  @Test
  void missingOrBadInputsAreOneLineErrors() {
    CliRun none = CliRun.of("plan", "--rps", "4");
    assertThat(none.exit()).isEqualTo(2);
    assertThat(none.err()).contains("--trace: none (expected: a trace, or all of --rps");

    CliRun badHit = CliRun.of("plan", "--rps", "4", "--input-tokens", "100", "--output-tokens", "10",
        "--hit-rate", "1.5");
    assertThat(badHit.exit()).isEqualTo(2);
    assertThat(badHit.err()).contains("prefixHitRate: 1.5 (expected: in [0, 1))");

    assertThatThrownBy(() -> PlanInputs.profile(MooncakeTrace.read(new StringReader(
        "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}\n"),
        "one.jsonl"))).hasMessageContaining("expected: at least 2");
  }
}
