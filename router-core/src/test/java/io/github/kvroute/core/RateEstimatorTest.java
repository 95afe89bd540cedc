package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RateEstimatorTest {
  @Test
  void aZeroRateStaysTheSameZeroWithoutTheDecay() {
    // the shortcut must return what rate * exp(-dt / tau) returned: the rate itself
    assertThat(Double.doubleToRawLongBits(RateEstimator.decayed(0.0, 0, 5_000_000_000L, 1e9)))
        .isEqualTo(Double.doubleToRawLongBits(0.0));
    assertThat(RateEstimator.decayed(0.0, 10, 0, 1e9)).isZero();
  }

  @Test
  void aNonZeroRateStillDecays() {
    assertThat(RateEstimator.decayed(2.0, 0, 1_000_000_000L, 1e9)).isEqualTo(2.0 * Math.exp(-1.0));
    RateEstimator r = new RateEstimator(1.0);
    assertThat(r.perSecond(0)).isZero();
    r.record(0);
    assertThat(r.perSecond(0)).isEqualTo(1.0);
    assertThat(r.perSecond(1_000_000_000L)).isEqualTo(Math.exp(-1.0));
  }
}
