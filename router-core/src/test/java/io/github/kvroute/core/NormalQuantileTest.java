package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Scale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The standard normal quantile against tabulated values. */
class NormalQuantileTest {

  @ParameterizedTest(name = "z({0}) = {1}")
  @CsvSource({
      "0.5, 0.0",
      "0.8, 0.8416212335729143",
      "0.9, 1.2815515655446004",
      "0.975, 1.959963984540054",
      "0.999, 3.090232306167813",
      "0.01, -2.3263478740408408",
      "0.0001, -3.719016485455709"})
  void matchesTabulatedQuantiles(double p, double z) {
    assertThat(NormalQuantile.of(p)).isCloseTo(z, within(1e-8));
  }

  @Property(tries = 300)
  void isAntisymmetricAndIncreasing(
      @ForAll @DoubleRange(min = 1e-6, max = 0.499) @Scale(8) double p) {
    assertThat(NormalQuantile.of(1 - p)).isCloseTo(-NormalQuantile.of(p), within(1e-8));
    assertThat(NormalQuantile.of(p + 1e-4)).isGreaterThan(NormalQuantile.of(p));
  }

  @ParameterizedTest
  @ValueSource(doubles = {0, 1, -0.1, 1.5, Double.NaN})
  void rejectsProbabilitiesOutsideTheOpenInterval(double p) {
    assertThatIllegalArgumentException().isThrownBy(() -> NormalQuantile.of(p))
        .withMessage("p: " + p + " (expected: in (0, 1))");
  }
}
