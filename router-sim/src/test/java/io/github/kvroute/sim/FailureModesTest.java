package io.github.kvroute.sim;

import static io.github.kvroute.sim.SimFixtures.oneReplica;
import static io.github.kvroute.sim.SimFixtures.runRecorded;
import static io.github.kvroute.sim.SimFixtures.unique;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Crashes, cold starts, retries, oversized prompts and the time limit, all with balanced books. */
class FailureModesTest {
  private static ScenarioBuilder twoReplicas() {
    return Scenarios.named("mixed-sizes").orElseThrow().toBuilder().replicas(2).requests(400)
        .replicaModel(ReplicaModel.newBuilder().coldStartMillis(3_000).build())
        .telemetryIntervalMillis(100).telemetryDelayMillis(100);
  }

  @Test
  void crashFailsInFlightWorkWhichIsRetriedAndTheReplicaReturnsAfterItsColdStart() {
    Scenario s = twoReplicas().restarts(List.of(new Scenario.Restart(5_000, 0))).build();

    var run = runRecorded(s, "round-robin");
    java.util.Map<String, Double> arrival = arrivalMillis(s);

    SimulationResult r = run.result();
    assertThat(r.completed() + r.rejected() + r.failed()).isEqualTo(r.offered());
    assertThat(r.checks()).anyMatch(l -> l.matches("note: [1-9][0-9]* retries after replica"
        + " failures.*"));
    assertThat(r.failedByReason().keySet())
        .isSubsetOf("replica crashed", "replica restarted", "replica starting");
    // retried attempts completed elsewhere
    assertThat(run.records().values()).anyMatch(rec -> rec.attempts() == 2
        && rec.end() == RequestState.End.COMPLETED);
    // nothing arriving while replica-0 was starting (after the routers knew) completed there
    assertThat(run.records().values()).noneMatch(rec -> rec.end() == RequestState.End.COMPLETED
        && rec.replica().equals("replica-0") && arrival.get(rec.id()) > 5_300
        && arrival.get(rec.id()) < 8_000);
    // and it served again after its cold start and a READY report
    assertThat(run.records().values()).anyMatch(rec -> rec.end() == RequestState.End.COMPLETED
        && rec.replica().equals("replica-0") && arrival.get(rec.id()) > 8_300);
  }

  private static java.util.Map<String, Double> arrivalMillis(Scenario s) {
    java.util.Map<String, Double> out = new java.util.HashMap<>();
    s.workload().requests(s.seed(), s.requests(), s.rateScale(), s.blockSizeTokens())
        .forEachRemaining(req -> out.put(req.id(), req.arrivalNanos() / 1e6));
    return out;
  }

  @Test
  void withoutRetriesTheCrashedWorkFails() {
    Scenario s = twoReplicas().retries(false).restarts(List.of(new Scenario.Restart(5_000, 0)))
        .build();

    SimulationResult r = Simulator.create().run(s, "hybrid-cost");

    assertThat(r.failedByReason()).containsKey("replica crashed");
    assertThat(r.completed() + r.rejected() + r.failed()).isEqualTo(r.offered());
    assertThat(r.checks()).anyMatch(l -> l.startsWith("note: 0 retries"));
  }

  @Test
  void requestsStillRunningAtTheTimeLimitFailAndTheChecksSaySo() {
    // 30 requests of 2,000 tokens each generating 5,000 tokens, limit 1 s after the last arrival
    List<SimRequest> requests = new java.util.ArrayList<>();
    for (int i = 0; i < 30; i++) {
      requests.add(unique("r" + i, i * 10, 2_000, i, 5_000));
    }
    Scenario s = oneReplica(requests).timeLimitMillis(1_000).build();

    SimulationResult r = Simulator.create().run(s, "round-robin");

    assertThat(r.failedByReason()).containsEntry("simulation time limit", 30L);
    assertThat(r.completed()).isZero();
    assertThat(r.checks()).anyMatch(l -> l.equals(
        "note: 30 requests ended as failed by the simulation time limit"));
  }

  @Test
  void promptLargerThanTheKvCacheFailsAsAClientError() {
    ReplicaModel small = ReplicaModel.newBuilder().kvCapacityTokens(1_024).build();
    Scenario s = oneReplica(List.of(unique("big", 0, 2_000, 1, 10), unique("ok", 1, 100, 2, 10)),
        small).build();

    SimulationResult r = Simulator.create().run(s, "round-robin");

    assertThat(r.failedByReason()).containsExactlyEntriesOf(
        java.util.Map.of("prompt and output exceed the KV capacity", 1L));
    assertThat(r.completed()).isEqualTo(1);
  }
}
