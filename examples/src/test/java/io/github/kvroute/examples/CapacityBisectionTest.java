package io.github.kvroute.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.sim.CapacityAtSlo;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class CapacityBisectionTest {
  private static NavigableMap<Double, Double> runs(double... scaleThenAttainment) {
    NavigableMap<Double, Double> runs = new TreeMap<>();
    for (int i = 0; i < scaleThenAttainment.length; i += 2) {
      runs.put(scaleThenAttainment[i], scaleThenAttainment[i + 1]);
    }
    return runs;
  }

  @Test
  void theNextRunIsHalfwayBetweenTheLastThatMetAndTheFirstThatMissed() {
    assertThat(CapacityBisection.nextScale(runs(0.5, 1.0, 1.0, 0.95, 1.5, 0.4, 2.0, 0.3)))
        .isEqualTo(1.25);
    assertThat(CapacityBisection.nextScale(runs(0.5, 1.0, 1.0, 0.95, 1.25, 0.7, 1.5, 0.4)))
        .isEqualTo(1.125);
  }

  @Test
  void exactlyTheAttainmentMeetsIt() {
    assertThat(CapacityBisection.nextScale(runs(1.0, CapacityAtSlo.ATTAINMENT, 2.0, 0.5)))
        .isEqualTo(1.5);
  }

  @Test
  void aRecoveryAfterTheFirstMissIsNotConsulted() {
    assertThat(CapacityBisection.nextScale(runs(1.0, 1.0, 2.0, 0.5, 3.0, 0.95))).isEqualTo(1.5);
  }

  @Test
  void anUnbracketedCapacityHasNoNextRun() {
    assertThat(CapacityBisection.nextScale(runs(1.0, 1.0, 2.0, 0.91))).as("beyond the sweep").isNaN();
    assertThat(CapacityBisection.nextScale(runs(1.0, 0.5, 2.0, 0.2))).as("below the sweep").isNaN();
    assertThat(CapacityBisection.nextScale(runs())).isNaN();
  }

  @Property
  void theNextRunNarrowsTheBracketTheCapacityIsInterpolatedIn(
      @ForAll @Size(min = 2, max = 8) Map<@DoubleRange(min = 0.01, max = 10) Double,
          @DoubleRange(min = 0, max = 1) Double> sweep) {
    NavigableMap<Double, Double> runs = new TreeMap<>(sweep);
    double next = CapacityBisection.nextScale(runs);
    CapacityAtSlo capacity = CapacityAtSlo.of(runs.entrySet().stream()
        .map(e -> new CapacityAtSlo.Point(e.getKey(), e.getValue())).toList());

    if (capacity.bound() != CapacityAtSlo.Bound.WITHIN) {
      assertThat(next).isNaN();
      return;
    }
    // with offered rates equal to the scales, the capacity lies in the bracket the next run halves
    double missed = runs.keySet().stream()
        .filter(scale -> runs.get(scale) < CapacityAtSlo.ATTAINMENT).findFirst().orElseThrow();
    double met = runs.lowerKey(missed);
    assertThat(capacity.rps()).isBetween(met, missed);
    assertThat(next).isEqualTo((met + missed) / 2);
  }
}
