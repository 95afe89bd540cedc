package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * When requests arrive: Poisson, bursty (a two-state Markov-modulated Poisson process) or a linear
 * ramp. Each is an immutable description; {@link #start} returns the arrival times of one stream.
 *
 * <h2>Design notes</h2>
 * <ul>
 *   <li>Poisson at rate {@code λ}: exponential gaps of mean {@code 1/λ}.
 *   <li>MMPP: a low and a high rate, with exponentially distributed sojourns in each state. Gaps are
 *       drawn at the current rate; when a gap would cross the state's end, time jumps to the switch and
 *       the gap is redrawn at the new rate, which is exact because the exponential is memoryless.
 *   <li>Ramp: rate rising (or falling) linearly from {@code λ0} to {@code λ1} over {@code T} seconds,
 *       then constant; a non-homogeneous Poisson process drawn by thinning (candidates at the peak
 *       rate, each kept with probability {@code λ(t) / peak}).
 * </ul>
 * {@code rateScale} multiplies every rate and divides every duration, so a scaled stream is the same
 * traffic played faster.
 *
 * <p>Immutable and thread-safe (the streams {@link #start} returns are not).
 */
abstract class ArrivalProcess {
  /** The arrival times, in nanoseconds from zero, of a stream drawn from {@code random}. */
  abstract LongSupplier start(SplittableRandom random, double rateScale);

  abstract String describe();

  static ArrivalProcess poisson(double perSecond) {
    checkArgument(perSecond > 0, "perSecond: %s (expected: > 0)", perSecond);
    return new ArrivalProcess() {
      @Override
      LongSupplier start(SplittableRandom random, double rateScale) {
        double mean = 1e9 / (perSecond * rateScale);
        double[] t = {0};
        return () -> {
          t[0] += Distributions.exponential(random, mean);
          return (long) t[0];
        };
      }

      @Override
      String describe() {
        return String.format(Locale.ROOT, "Poisson %.1f/s", perSecond);
      }
    };
  }

  static ArrivalProcess bursty(double lowPerSecond, double highPerSecond, double meanLowSeconds,
      double meanHighSeconds) {
    checkArgument(lowPerSecond > 0 && highPerSecond > 0, "rates: %s, %s (expected: > 0)",
        lowPerSecond, highPerSecond);
    checkArgument(meanLowSeconds > 0 && meanHighSeconds > 0, "sojourns: %s, %s (expected: > 0)",
        meanLowSeconds, meanHighSeconds);
    return new ArrivalProcess() {
      @Override
      LongSupplier start(SplittableRandom random, double rateScale) {
        double[] rates = {1e9 / (lowPerSecond * rateScale), 1e9 / (highPerSecond * rateScale)};
        double[] sojourns = {meanLowSeconds * 1e9 / rateScale, meanHighSeconds * 1e9 / rateScale};
        double[] state = {0, 0, Distributions.exponential(random, sojourns[0])}; // t, high?, switchAt
        return () -> {
          while (true) {
            int s = (int) state[1];
            double gap = Distributions.exponential(random, rates[s]);
            if (state[0] + gap < state[2]) {
              state[0] += gap;
              return (long) state[0];
            }
            state[0] = state[2];
            state[1] = 1 - s;
            state[2] = state[0] + Distributions.exponential(random, sojourns[1 - s]);
          }
        };
      }

      @Override
      String describe() {
        return String.format(Locale.ROOT, "bursty %.1f/s (mean %.0f s) and %.1f/s (mean %.0f s)",
            lowPerSecond, meanLowSeconds, highPerSecond, meanHighSeconds);
      }
    };
  }

  static ArrivalProcess ramp(double fromPerSecond, double toPerSecond, double overSeconds) {
    return rampAndBurst(fromPerSecond, toPerSecond, overSeconds, 0, 0, 1);
  }

  /**
   * A {@link #ramp} whose rate is multiplied by {@code burstFactor} from {@code burstAtSeconds} for
   * {@code burstSeconds} (no burst when {@code burstSeconds} is 0).
   */
  static ArrivalProcess rampAndBurst(double fromPerSecond, double toPerSecond, double overSeconds,
      double burstAtSeconds, double burstSeconds, double burstFactor) {
    checkArgument(fromPerSecond > 0 && toPerSecond > 0, "rates: %s, %s (expected: > 0)",
        fromPerSecond, toPerSecond);
    checkArgument(overSeconds > 0, "overSeconds: %s (expected: > 0)", overSeconds);
    checkArgument(burstAtSeconds >= 0 && burstSeconds >= 0,
        "burst: at %s s for %s s (expected: >= 0)", burstAtSeconds, burstSeconds);
    checkArgument(burstFactor >= 1, "burstFactor: %s (expected: >= 1)", burstFactor);
    return new ArrivalProcess() {
      @Override
      LongSupplier start(SplittableRandom random, double rateScale) {
        double peak = Math.max(fromPerSecond, toPerSecond) * burstFactor * rateScale;
        double span = overSeconds * 1e9 / rateScale;
        double burstFrom = burstAtSeconds * 1e9 / rateScale;
        double burstTo = burstFrom + burstSeconds * 1e9 / rateScale;
        double[] t = {0};
        return () -> {
          while (true) {
            t[0] += Distributions.exponential(random, 1e9 / peak);
            double f = Math.min(1.0, t[0] / span);
            double rate = (fromPerSecond + (toPerSecond - fromPerSecond) * f) * rateScale
                * (t[0] >= burstFrom && t[0] < burstTo ? burstFactor : 1);
            if (random.nextDouble() * peak < rate) {
              return (long) t[0];
            }
          }
        };
      }

      @Override
      String describe() {
        return String.format(Locale.ROOT, "ramp %.1f/s to %.1f/s over %.0f s", fromPerSecond,
            toPerSecond, overSeconds) + (burstSeconds == 0 ? "" : String.format(Locale.ROOT,
                ", x%.1f for %.0f s at %.0f s", burstFactor, burstSeconds, burstAtSeconds));
      }
    };
  }
}
