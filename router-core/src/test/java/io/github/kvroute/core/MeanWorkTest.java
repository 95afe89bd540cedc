package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The request-work average: the cost model's 512-token prefill, then a 5% moving average. */
class MeanWorkTest {

  @Test
  void startsAtTheCostModelsPrefillOf512TokensThenMovesFivePercentPerRequest() {
    MeanWork mean = new MeanWork(CostModel.defaults());
    assertThat(mean.millis()).isCloseTo(20 + 512 * 0.035, within(1e-9));

    mean.record(100);
    assertThat(mean.millis()).isEqualTo(100.0);
    mean.record(300);
    assertThat(mean.millis()).isCloseTo(100 + 0.05 * 200, within(1e-9));
  }
}
