package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

class SimulationResultTest {

  @Test
  void csvHeaderIsExactlyTheDocumentedColumns() {
    assertThat(SimulationResult.CSV_HEADER).isEqualTo("policy,offered,admitted,completed,rejected,"
        + "failed,goodput_rps,slo_attainment,ttft_p50_ms,ttft_p90_ms,ttft_p99_ms,e2e_p99_ms,"
        + "prefix_hit_ratio,recomputed_tokens,imbalance,decision_us_p50,decision_us_p99");
  }

  @Test
  void rowHasOneFixedFormatValuePerColumnWhateverTheDefaultLocale() {
    Scenario s = Scenarios.named("multi-tenant").orElseThrow().toBuilder().requests(300).build();
    Locale saved = Locale.getDefault();
    SimulationResult r;
    try {
      Locale.setDefault(Locale.GERMANY);
      r = Simulator.create().run(s, "hybrid-cost");
    } finally {
      Locale.setDefault(saved);
    }
    String[] cols = r.csvRow().split(",", -1);
    assertThat(cols).hasSize(17);
    assertThat(cols[0]).isEqualTo("hybrid-cost");
    assertThat(cols[1]).isEqualTo("300");
    assertThat(cols[6]).matches("\\d+\\.\\d{3}");
    assertThat(cols[7]).matches("\\d\\.\\d{4}");
    assertThat(cols[8]).matches("\\d+\\.\\d");
    assertThat(cols[12]).matches("\\d\\.\\d{4}");
    assertThat(cols[13]).matches("\\d+");
    assertThat(cols[14]).matches("\\d+\\.\\d{3}");
    assertThat(cols[16]).matches("\\d+\\.\\d{2}");
    assertThat(Double.parseDouble(cols[6])).isEqualTo(r.goodputRps(),
        org.assertj.core.data.Offset.offset(5e-4));
  }

  @Test
  void distributionsAndTimelinesAreConsistent() {
    Scenario s = Scenarios.named("mixed-sizes").orElseThrow().toBuilder().requests(500).build();
    SimulationResult r = Simulator.create().run(s, "round-robin");

    List<SimulationResult.CdfPoint> cdf = r.ttftCdf();
    assertThat(cdf).isNotEmpty();
    for (int i = 1; i < cdf.size(); i++) {
      assertThat(cdf.get(i).millis()).isGreaterThanOrEqualTo(cdf.get(i - 1).millis());
      assertThat(cdf.get(i).fraction()).isGreaterThanOrEqualTo(cdf.get(i - 1).fraction());
    }
    assertThat(cdf.get(cdf.size() - 1).fraction()).isEqualTo(1.0);
    assertThat(r.ttftHistogram().getTotalCount()).isEqualTo(r.completed());
    assertThat(r.ttftP50Millis()).isLessThanOrEqualTo(r.ttftP90Millis());
    assertThat(r.ttftP90Millis()).isLessThanOrEqualTo(r.ttftP99Millis());
    assertThat(r.replicaWork()).hasSize(4).allSatisfy(row -> assertThat(row.length).isBetween(1, 100));
    assertThat(r.workBucketMillis()).isPositive();
    assertThat(r.replicaWork().get(0).length * r.workBucketMillis())
        .isGreaterThanOrEqualTo((long) (r.simulatedSeconds() * 1000) - r.workBucketMillis());
    long[] perReplica = r.tokensByReplica();
    long max = java.util.Arrays.stream(perReplica).max().orElseThrow();
    double mean = java.util.Arrays.stream(perReplica).average().orElseThrow();
    assertThat(r.imbalance()).isEqualTo(max / mean, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(r.requestsPerWallSecond()).isPositive();
    assertThat(r.simulatedSeconds()).isPositive();
  }

  @Test
  void goodputCountsEachRequestAgainstItsOwnDeadline() {
    // two lone 1,000-token prompts, each with a TTFT of 63.06 ms (worked-example engine), SLO 50 ms:
    // the one with a 100 ms budget meets it; the one without falls back to the SLO and misses
    SimRequest generous = withBudget(SimFixtures.unique("generous", 0, 1_000, 1, 1), 100);
    SimRequest none = SimFixtures.unique("none", 1_000, 1_000, 3, 1);
    Scenario s = SimFixtures.oneReplica(List.of(generous, none)).ttftSloMillis(50).build();

    SimulationResult r = Simulator.create().run(s, "round-robin");

    assertThat(r.completed()).isEqualTo(2);
    assertThat(r.ttftP50Millis()).isCloseTo(63.06, org.assertj.core.data.Offset.offset(0.1));
    assertThat(r.ttftP99Millis()).isCloseTo(63.06, org.assertj.core.data.Offset.offset(0.1));
    assertThat(r.sloAttainment()).isEqualTo(1 / 2.0);
    assertThat(r.goodputRps()).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(r.offeredRps()).isCloseTo(2.0, org.assertj.core.data.Offset.offset(1e-9));
  }

  private static SimRequest withBudget(SimRequest r, long budgetMillis) {
    return SimRequest.newBuilder().id(r.id()).arrivalNanos(r.arrivalNanos()).model(r.model())
        .prompt(r.prompt()).outputTokens(r.outputTokens())
        .ttftBudget(java.time.Duration.ofMillis(budgetMillis)).build();
  }

  @Test
  void emptyDistributionsAreNaNNotZero() {
    // every request rejected: a replica count of 1 with a prompt bigger than its KV fails instead
    ReplicaModel tiny = ReplicaModel.newBuilder().kvCapacityTokens(64).build();
    Scenario s = SimFixtures.oneReplica(List.of(SimFixtures.unique("a", 0, 1_000, 1, 1)), tiny)
        .build();
    SimulationResult r = Simulator.create().run(s, "round-robin");
    assertThat(r.completed()).isZero();
    assertThat(r.csvRow()).contains(",NaN,NaN,NaN,NaN,");
    assertThat(r.ttftCdf()).isEmpty();
  }
}
