package io.github.kvroute.examples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code kvroute-sim advise ...}: the advisors on the command line. */
class AdviseCommandTest {
  @Test
  void replicationRunsThePolicyWithAndWithoutTheAdviceAndListsTheChanges() {
    CliRun r = CliRun.of("advise", "replication", "--policy", "cache-only", "--requests", "600",
        "--rate-scale", "2");

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("== hot-prefix:").contains("\ncache-only ")
        .contains("\ncache-only+replication ").contains("replication advice (")
        .contains("t_s  ").contains("recompute_ms_per_s");
  }

  @Test
  void replicationHelpAndBadInputs() {
    assertThat(CliRun.of("advise", "replication", "--help").out())
        .contains("Usage: kvroute-sim advise replication");
    CliRun bad = CliRun.of("advise", "replication", "--policy", "nope");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err()).contains("--policy: nope (expected: one of");
    CliRun badOption =
        CliRun.of("advise", "replication", "--option", "max_replicas=0", "--requests", "50");
    assertThat(badOption.exit()).isEqualTo(2);
    assertThat(badOption.err()).contains("max_replicas");
  }

  @Test
  void autoscaleWatchesTheRunAndPrintsTheAdviceTimeline(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) throws java.io.IOException {
    CliRun r = CliRun.of("advise", "autoscale", "--requests", "1500", "--cold-start-s", "30",
        "--cooldown-s", "30", "--every-s", "20", "--out", dir.toString());

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("== ramp-and-burst:").contains("worker throughput: the simulator's"
        + " step model of llama3-8b-h100").contains("\nhybrid-cost ").contains("advice changes (")
        .contains("t_s  offered_rps  load  forecast  advised  added  queue_ms");
    assertThat(dir.resolve("autoscale.png")).isNotEmptyFile();
    assertThat(java.nio.file.Files.readAllLines(dir.resolve("autoscale.csv")).get(0))
        .isEqualTo("t_s,arrivals,load,forecast,advised_replicas,added_replicas,queue_ms,kv,reason");
  }

  @Test
  void autoscaleWithApplyAlsoRunsTheFleetScaledByTheAdvice() {
    CliRun r = CliRun.of("advise", "autoscale", "--apply", "--requests", "1500", "--cold-start-s",
        "30", "--cooldown-s", "30", "--no-report");

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("\nhybrid-cost ").contains("\nhybrid-cost+advice ")
        .contains("advice changes, applied (each a cold start of 30 s before serving)");
  }

  @Test
  void autoscaleRejectsAnUnknownScenario() {
    CliRun r = CliRun.of("advise", "autoscale", "--scenario", "nope", "--no-report");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--scenario: nope (expected: a scenario name");
  }

  @Test
  void canaryComparesTheArmsByPrefixHit() {
    CliRun r = CliRun.of("advise", "canary", "--requests", "1000");

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("== canary:")
        .contains("arm        requests  hit_ratio  ttft_mean_ms  ttft_hit_ms  ttft_miss_ms")
        .contains("\nstable v1 ").contains("\ncanary v2 ").contains("hit ratio gap");
    CliRun bad = CliRun.of("advise", "canary", "--scenario", "multi-tenant");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err()).contains("expected: a scenario with a canary");
  }
}
