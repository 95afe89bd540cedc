package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ScenarioBuilder#deadlines}: the routers told the objective shed what would miss it. */
class DeadlinesTest {
  /** Twelve 4,000-token prompts at once on one replica: about 160 ms of prefill each. */
  private static List<SimRequest> burst() {
    List<SimRequest> out = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      out.add(SimFixtures.unique("r" + i, i * 0.001, 4_000, i + 1, 8));
    }
    return out;
  }

  private static SimFixtures.Recorded run(boolean deadlines) {
    Scenario s = SimFixtures.oneReplica(burst()).ttftSloMillis(1_000).deadlines(deadlines).build();
    return SimFixtures.runRecorded(s, "hybrid-cost");
  }

  @Test
  void withoutDeadlinesEveryRequestIsServedAndTheLastOnesLate() {
    SimFixtures.Recorded r = run(false);
    assertThat(r.result().completed()).isEqualTo(12);
    assertThat(r.result().rejected()).isZero();
    assertThat(r.get("r11").ttftNanos()).isGreaterThan(Duration.ofSeconds(1).toNanos());
  }

  @Test
  void withDeadlinesTheRequestsPredictedLateAreRejectedAndNoneInTimeIsLost() {
    SimFixtures.Recorded off = run(false);
    SimFixtures.Recorded on = run(true);
    SimulationResult r = on.result();
    assertThat(r.rejected()).isPositive();
    assertThat(r.offered()).isEqualTo(r.completed() + r.rejected() + r.failed());
    assertThat(r.rejectedByReason()).containsOnlyKeys("DEADLINE");
    // the first request is predicted in time and served, the last predicted late and shed
    assertThat(on.get("r0").end()).isEqualTo(RequestState.End.COMPLETED);
    assertThat(on.get("r11").end()).isEqualTo(RequestState.End.REJECTED);
    assertThat(on.get("r11").reason()).isEqualTo("DEADLINE");
    // shedding the late ones costs none of the requests that met the objective
    assertThat(r.sloAttainment()).isGreaterThanOrEqualTo(off.result().sloAttainment());
  }

  @Test
  void aRequestsOwnBudgetIsKeptAndTheObjectiveFillsOnlyMissingOnes() {
    SimRequest own = SimRequest.newBuilder().id("own").arrivalNanos(0).model(SimFixtures.MODEL)
        .prompt(SimFixtures.unique("x", 0, 32, 1, 1).prompt()).outputTokens(1)
        .ttftBudget(Duration.ofMillis(300)).build();
    SimRequest none = SimFixtures.unique("none", 0, 32, 2, 1);
    Scenario told = SimFixtures.oneReplica(List.of(own, none)).ttftSloMillis(750)
        .deadlines(true).build();
    Scenario untold = SimFixtures.oneReplica(List.of(own, none)).ttftSloMillis(750).build();
    assertThat(told.routerBudget(own)).contains(Duration.ofMillis(300));
    assertThat(told.routerBudget(none)).contains(Duration.ofMillis(750));
    assertThat(untold.routerBudget(own)).contains(Duration.ofMillis(300));
    assertThat(untold.routerBudget(none)).isEmpty();
    assertThat(told.deadlines()).isTrue();
    assertThat(told.toBuilder().build().deadlines()).isTrue();
    assertThat(told).hasToString(told.toString()).asString().contains("deadlines 750.0ms");
  }
}
