package io.github.kvroute.sim;

import java.util.Arrays;
import java.util.SplittableRandom;

/** Random variates for workloads, all drawn from a caller's {@link SplittableRandom}. */
final class Distributions {
  private Distributions() {}

  /** Exponential with the given mean. */
  static double exponential(SplittableRandom r, double mean) {
    return -mean * Math.log(1.0 - r.nextDouble());
  }

  /** Log-normal with the given median and log-space standard deviation, clipped to [min, max]. */
  static int logNormal(SplittableRandom r, double median, double sigma, int min, int max) {
    double v = median * Math.exp(sigma * r.nextGaussian());
    return (int) Math.max(min, Math.min(max, Math.round(v)));
  }

  /** Uniform integer in [min, max]. */
  static int uniform(SplittableRandom r, int min, int max) {
    return min + r.nextInt(max - min + 1);
  }

  /** Zipf over ranks {@code 0..n-1}: P(k) proportional to {@code 1 / (k + 1)^s}. Immutable. */
  static final class Zipf {
    private final double[] cdf;

    Zipf(int n, double s) {
      cdf = new double[n];
      double sum = 0;
      for (int k = 0; k < n; k++) {
        sum += 1.0 / Math.pow(k + 1, s);
        cdf[k] = sum;
      }
      for (int k = 0; k < n; k++) {
        cdf[k] /= sum;
      }
    }

    int sample(SplittableRandom r) {
      int i = Arrays.binarySearch(cdf, r.nextDouble());
      return Math.min(cdf.length - 1, i >= 0 ? i : -i - 1);
    }
  }
}
