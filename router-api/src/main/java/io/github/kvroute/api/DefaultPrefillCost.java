package io.github.kvroute.api;

/**
 * The prefill cost assumed before anything is measured: {@value #OVERHEAD_MILLIS} ms per prefill plus
 * {@value #MILLIS_PER_TOKEN} ms per computed prompt token (1,000 tokens: 55 ms). The router's cost
 * model starts from these until a replica reports or outcomes calibrate its own rate, and a view built
 * with {@link CandidateView#newBuilder()} carries them unless told otherwise: one source for both.
 *
 * <p>Constants only; thread-safe.
 */
public final class DefaultPrefillCost {
  /** Fixed cost of any prefill, in milliseconds. */
  public static final double OVERHEAD_MILLIS = 20;
  /** Cost per computed prompt token, in milliseconds. */
  public static final double MILLIS_PER_TOKEN = 0.035;

  private DefaultPrefillCost() {}
}
