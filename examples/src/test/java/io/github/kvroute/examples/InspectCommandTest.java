package io.github.kvroute.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code kvroute-sim inspect}: per replica, the engine's waiting requests beside the estimate. */
class InspectCommandTest {
  @Test
  void eachPolicyGetsARowPerReplicaWhoseWorkSharesAddUpToOne() {
    CliRun r = CliRun.of("inspect", "--scenario", "multi-tenant", "--policies",
        "hybrid-cost,round-robin", "--requests", "400", "--seed", "2");

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("== multi-tenant:").contains("\nhybrid-cost: SLO attainment ")
        .contains("\nround-robin: SLO attainment ")
        .contains("replica    mean_waiting  mean_estimated_queue_ms  estimate_per_waiting_ms");
    for (String policy : new String[] {"hybrid-cost", "round-robin"}) {
      String section = r.out().substring(r.out().indexOf("\n" + policy + ": "));
      double shares = 0;
      for (int i = 0; i < 4; i++) {
        String row = section.substring(section.indexOf("\nreplica-" + i + " ") + 1);
        String[] cells = row.substring(0, row.indexOf('\n')).trim().split("\\s+");
        assertThat(cells).as(row).hasSize(6);
        assertThat(Double.parseDouble(cells[1])).as("mean waiting").isGreaterThanOrEqualTo(0);
        shares += Double.parseDouble(cells[5]);
      }
      assertThat(shares).as(policy + "'s work shares").isBetween(0.995, 1.005);
    }
  }

  @Test
  void theTimelinePrintsOneLinePerSampleWithEveryReplicaAndShowsACrashedOneDown() {
    CliRun r = CliRun.of("inspect", "--scenario", "stale-epoch-replay", "--policies", "round-robin",
        "--telemetry", "vllm", "--interval-ms", "1000", "--timeline", "--requests", "1000");

    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = r.out().lines().filter(l -> l.startsWith("t=")).toList();
    // 1,000 requests at 40 per second: about 25 s of arrivals, sampled every second
    assertThat(lines).hasSizeGreaterThan(20);
    for (String line : lines) {
      assertThat(line.split("  replica-")).as(line).hasSize(5);
    }
    // replica-1 crashes at 20 s and stays down for 30 s
    assertThat(lines.get(0)).doesNotContain("(down)");
    assertThat(lines.get(21)).contains("replica-1 (down) ");
  }

  @Test
  void badInputsNameTheOption() {
    CliRun scenario = CliRun.of("inspect", "--scenario", "nope");
    assertThat(scenario.exit()).isEqualTo(2);
    assertThat(scenario.err()).contains("--scenario: nope (expected: one of");
    CliRun policy = CliRun.of("inspect", "--policies", "nope");
    assertThat(policy.exit()).isEqualTo(2);
    assertThat(policy.err()).contains("--policies: nope (expected: one of");
    CliRun interval = CliRun.of("inspect", "--interval-ms", "0");
    assertThat(interval.exit()).isEqualTo(2);
    assertThat(interval.err()).contains("--interval-ms: 0 (expected: >= 1)");
    CliRun telemetry = CliRun.of("inspect", "--telemetry", "nope");
    assertThat(telemetry.exit()).isEqualTo(2);
    assertThat(telemetry.err()).contains("--telemetry: nope (expected: one of [vllm,");
  }
}
