package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

class ArrivalProcessTest {
  private static long[] draw(ArrivalProcess p, int n, double rateScale) {
    LongSupplier times = p.start(new SplittableRandom(42), rateScale);
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = times.getAsLong();
      if (i > 0) {
        assertThat(out[i]).isGreaterThanOrEqualTo(out[i - 1]);
      }
    }
    return out;
  }

  private static double rate(long[] t, int from, int to) {
    return (to - from) / ((t[to - 1] - t[from]) / 1e9);
  }

  @Test
  void poissonHasItsRateAndScales() {
    long[] t = draw(ArrivalProcess.poisson(20), 20_000, 1.0);
    assertThat(rate(t, 0, t.length)).isCloseTo(20, offset(0.5));
    assertThat(rate(draw(ArrivalProcess.poisson(20), 20_000, 3.0), 0, 20_000))
        .isCloseTo(60, offset(1.5));
  }

  @Test
  void burstyAveragesItsTwoRatesByTheirSojournsAndClumps() {
    // 10/s for 8 s on average, 50/s for 2 s: (80 + 100) / 10 = 18/s
    long[] t = draw(ArrivalProcess.bursty(10, 50, 8, 2), 50_000, 1.0);
    assertThat(rate(t, 0, t.length)).isCloseTo(18, offset(1.0));
    // burstier than Poisson: the variance of per-second counts exceeds their mean
    int seconds = (int) (t[t.length - 1] / 1_000_000_000L);
    int[] counts = new int[seconds + 1];
    for (long x : t) {
      counts[(int) (x / 1_000_000_000L)]++;
    }
    double mean = java.util.Arrays.stream(counts).average().orElseThrow();
    double var = java.util.Arrays.stream(counts).mapToDouble(c -> (c - mean) * (c - mean)).sum()
        / counts.length;
    assertThat(var).isGreaterThan(3 * mean);
  }

  @Test
  void rampRisesLinearlyThenHolds() {
    long[] t = draw(ArrivalProcess.ramp(5, 50, 100), 20_000, 1.0);
    int early = 0;
    int late = 0;
    for (long x : t) {
      if (x < 10e9) {
        early++;
      } else if (x >= 90e9 && x < 100e9) {
        late++;
      }
    }
    // mean rate over [0, 10 s) is 7.25/s, over [90, 100 s) 47.75/s
    assertThat(early).isBetween(50, 100);
    assertThat(late).isBetween(420, 540);
    long afterRamp = java.util.Arrays.stream(t).filter(x -> x >= 100e9 && x < 200e9).count();
    assertThat(afterRamp).isBetween(4_700L, 5_300L);
  }
}
