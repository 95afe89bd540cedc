package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.sim.CapacityAtSlo.Bound;
import io.github.kvroute.sim.CapacityAtSlo.Point;
import java.util.List;
import org.junit.jupiter.api.Test;

class CapacityAtSloTest {

  @Test
  void theKneeIsInterpolatedBetweenTheLastRunThatMetTheTargetAndTheFirstThatMissed() {
    // 10 req/s: 1.00, 20: 0.98, 30: 0.94, 40: 0.70, 50: 0.95 (a lucky run past the knee, ignored).
    // By hand: 30 + (0.94 - 0.90) / (0.94 - 0.70) x (40 - 30) = 30 + 1.6667 = 31.6667 req/s.
    List<Point> sweep = List.of(new Point(40, 0.70), new Point(10, 1.0), new Point(30, 0.94),
        new Point(20, 0.98), new Point(50, 0.95));

    CapacityAtSlo c = CapacityAtSlo.of(sweep);

    assertThat(c.rps()).isCloseTo(30 + 10 * 0.04 / 0.24, within(1e-9));
    assertThat(c.bound()).isEqualTo(Bound.WITHIN);
    assertThat(c.display()).isEqualTo("31.667");
  }

  @Test
  void exactlyTheTargetCountsAsMet() {
    CapacityAtSlo c = CapacityAtSlo.of(List.of(new Point(5, 0.9), new Point(10, 0.5)));

    assertThat(c.rps()).isEqualTo(5);
    assertThat(c.bound()).isEqualTo(Bound.WITHIN);
  }

  @Test
  void aSweepThatNeverMissesGivesALowerBound_andOneThatAlwaysMissesAnUpperBound() {
    CapacityAtSlo never = CapacityAtSlo.of(List.of(new Point(5, 1.0), new Point(15, 0.95)));
    CapacityAtSlo always = CapacityAtSlo.of(List.of(new Point(5, 0.8), new Point(15, 0.1)));

    assertThat(never.rps()).isEqualTo(15);
    assertThat(never.bound()).isEqualTo(Bound.AT_LEAST);
    assertThat(never.display()).isEqualTo(">=15.000");
    assertThat(always.rps()).isEqualTo(5);
    assertThat(always.bound()).isEqualTo(Bound.BELOW);
    assertThat(always.display()).isEqualTo("<5.000");
  }

  @Test
  void badInputIsRejectedWithItsNameAndExpectation() {
    assertThatIllegalArgumentException().isThrownBy(() -> CapacityAtSlo.of(List.of()))
        .withMessage("sweep: [] (expected: at least one point)");
    assertThatIllegalArgumentException().isThrownBy(() -> new Point(0, 0.5))
        .withMessage("offeredRps: 0.0 (expected: finite and > 0)");
    assertThatIllegalArgumentException().isThrownBy(() -> new Point(1, 1.5))
        .withMessage("sloAttainment: 1.5 (expected: in [0, 1])");
  }

  @Test
  void theCapacityOfRealRunsIsReadOffTheirOfferedRates() {
    Scenario base = Scenarios.named("mixed-sizes").orElseThrow().toBuilder().requests(300).build();
    List<SimulationResult> sweep = List.of(Simulator.create().run(base, "round-robin"),
        Simulator.create().run(base.toBuilder().rateScale(8).build(), "round-robin"));

    CapacityAtSlo c = CapacityAtSlo.ofResults(sweep);

    assertThat(sweep.get(1).offeredRps()).isCloseTo(8 * sweep.get(0).offeredRps(),
        within(0.5 * sweep.get(0).offeredRps()));
    CapacityAtSlo reversed = CapacityAtSlo.ofResults(List.of(sweep.get(1), sweep.get(0)));
    assertThat(reversed.rps()).isEqualTo(c.rps());
    assertThat(reversed.bound()).isEqualTo(c.bound());
  }
}
