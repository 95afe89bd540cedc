package io.github.kvroute.api;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Randomness for policies that sample or break ties. Injected so that decisions are reproducible from a
 * seed: a {@link #seeded(long) seeded} source returns the same sequence for the same sequence of calls,
 * whichever threads make them.
 *
 * <p>Thread-safety: every implementation returned here is safe to call concurrently; host
 * implementations must be too.
 */
public interface RandomSource {

  /** {@return a uniformly distributed 64-bit value} */
  long nextLong();

  /** {@return a uniformly distributed value in {@code [0, 1)}} */
  default double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  /**
   * A uniformly distributed value in {@code [0, bound)}.
   *
   * @param bound the exclusive upper bound; {@code >= 1}
   * @return the value
   * @throws IllegalArgumentException if {@code bound <= 0}
   */
  default int nextInt(int bound) {
    Checks.atLeast(bound, 1, "bound");
    // Lemire's multiply-shift; the bias for bounds far below 2^32 is negligible for routing.
    return (int) (((nextLong() >>> 32) * bound) >>> 32);
  }

  /**
   * A deterministic, lock-free source: SplitMix64 over an atomic counter (Steele, Lea and Flood,
   * "Fast splittable pseudorandom number generators", OOPSLA 2014).
   *
   * @param seed the starting state; the same seed gives the same sequence
   * @return the source, safe for concurrent use
   */
  static RandomSource seeded(long seed) {
    AtomicLong state = new AtomicLong(seed);
    return () -> {
      long z = state.addAndGet(0x9E3779B97F4A7C15L);
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    };
  }

  /** {@return a non-deterministic source backed by {@link ThreadLocalRandom}, for production} */
  static RandomSource threadLocal() {
    return () -> ThreadLocalRandom.current().nextLong();
  }
}
