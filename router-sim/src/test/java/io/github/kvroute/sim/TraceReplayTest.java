package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.sim.trace.AzureTrace;
import io.github.kvroute.sim.trace.MooncakeTrace;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The shipped excerpts replay end to end (the full traces are measured by hand, not in CI). */
class TraceReplayTest {

  @ParameterizedTest
  @ValueSource(strings = {"round-robin", "hybrid-cost"})
  void mooncakeExcerptReplaysWithPrefixSharing(String policy) throws Exception {
    Scenario s = Scenarios.fromTrace(MooncakeTrace.read(Path.of(getClass()
        .getResource("/traces/mooncake_conversation_300.jsonl").toURI())));

    SimulationResult r = Simulator.create().run(s, policy);

    assertThat(r.offered()).isEqualTo(300);
    assertThat(r.completed() + r.rejected() + r.failed()).isEqualTo(300);
    // every request starts with the shared 512-token system block: some reuse is certain
    assertThat(r.prefixHitRatio()).isPositive();
    assertThat(r.checks()).noneMatch(l -> l.startsWith("FAILED"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"/traces/azure_conv_300.csv", "/traces/azure_code_300.csv"})
  void azureExcerptsReplayWithoutSharing(String resource) throws Exception {
    Scenario s = Scenarios.fromTrace(AzureTrace.read(Path.of(getClass().getResource(resource)
        .toURI())));

    SimulationResult r = Simulator.create().run(s, "hybrid-cost");

    assertThat(r.completed()).isEqualTo(300);
    assertThat(r.prefixHitRatio()).isZero();
    assertThat(r.recomputedTokens()).isZero();
  }

  @ParameterizedTest
  @ValueSource(doubles = {1.0, 4.0})
  void rateScaleCompressesTraceTime(double scale) throws Exception {
    Scenario s = Scenarios.fromTrace(MooncakeTrace.read(Path.of(getClass()
        .getResource("/traces/mooncake_conversation_300.jsonl").toURI()))).toBuilder()
        .rateScale(scale).build();
    SimulationResult r = Simulator.create().run(s, "round-robin");
    // 300 requests over ~105 s of trace: the arrival span (goodput's denominator) shrinks with it
    double spanSeconds = r.offered() * r.sloAttainment() / r.goodputRps();
    assertThat(spanSeconds).isBetween(95 / scale, 110 / scale);
  }
}
