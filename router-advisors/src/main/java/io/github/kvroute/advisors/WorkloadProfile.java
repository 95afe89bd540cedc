package io.github.kvroute.advisors;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The offered work a capacity plan sizes for, as averages: request rate, prompt and output length, and
 * the share of prompt tokens the fleet's prefix caches serve (which discounts prefill, never decode).
 *
 * <p>Immutable and thread-safe.
 *
 * @param requestsPerSecond mean arrival rate
 * @param meanInputTokens mean prompt tokens per request, cached or not
 * @param meanOutputTokens mean generated tokens per request
 * @param prefixHitRate share of prompt tokens served from a prefix cache, in {@code [0, 1)}
 */
public record WorkloadProfile(double requestsPerSecond, double meanInputTokens,
    double meanOutputTokens, double prefixHitRate) {

  /**
   * @param requestsPerSecond mean arrival rate
   * @param meanInputTokens mean prompt tokens per request, cached or not
   * @param meanOutputTokens mean generated tokens per request
   * @param prefixHitRate share of prompt tokens served from a prefix cache, in {@code [0, 1)}
   * @throws IllegalArgumentException if a value is negative, not finite, or the hit rate not below
   *     1
   */
  public WorkloadProfile {
    checkArgument(requestsPerSecond > 0 && Double.isFinite(requestsPerSecond),
        "requestsPerSecond: %s (expected: finite and > 0)", requestsPerSecond);
    checkArgument(meanInputTokens >= 0 && Double.isFinite(meanInputTokens),
        "meanInputTokens: %s (expected: finite and >= 0)", meanInputTokens);
    checkArgument(meanOutputTokens >= 0 && Double.isFinite(meanOutputTokens),
        "meanOutputTokens: %s (expected: finite and >= 0)", meanOutputTokens);
    checkArgument(prefixHitRate >= 0 && prefixHitRate < 1,
        "prefixHitRate: %s (expected: in [0, 1))", prefixHitRate);
  }

  /**
   * {@return prompt tokens per second the prefill pool must compute: the cached share needs no
   * prefill}
   */
  public double uncachedInputTokensPerSecond() {
    return requestsPerSecond * meanInputTokens * (1 - prefixHitRate);
  }

  /** {@return tokens per second the decode pool must generate: caching saves none of them} */
  public double outputTokensPerSecond() {
    return requestsPerSecond * meanOutputTokens;
  }
}
