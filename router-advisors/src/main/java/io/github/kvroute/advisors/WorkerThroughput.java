package io.github.kvroute.advisors;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What one worker sustains, measured or derived: prompt tokens computed per second, and output tokens
 * generated per second while meeting the per-token latency target.
 *
 * <p>Immutable and thread-safe.
 *
 * @param prefillTokensPerSecond prompt tokens one worker computes per second
 * @param decodeTokensPerSecond output tokens one worker generates per second under the latency target
 * @param source where the numbers come from, for the plan's assumptions (e.g. {@code measured},
 *     {@code simulator step model of llama3-8b-h100})
 */
public record WorkerThroughput(double prefillTokensPerSecond, double decodeTokensPerSecond,
    String source) {

  /**
   * @param prefillTokensPerSecond prompt tokens one worker computes per second
   * @param decodeTokensPerSecond output tokens one worker generates per second under the latency
   *     target
   * @param source where the numbers come from, for the plan's assumptions (e.g. {@code measured},
   *     {@code simulator step model of llama3-8b-h100})
   * @throws IllegalArgumentException if a rate is not finite and positive, or the source is blank
   */
  public WorkerThroughput {
    checkArgument(prefillTokensPerSecond > 0 && Double.isFinite(prefillTokensPerSecond),
        "prefillTokensPerSecond: %s (expected: finite and > 0)", prefillTokensPerSecond);
    checkArgument(decodeTokensPerSecond > 0 && Double.isFinite(decodeTokensPerSecond),
        "decodeTokensPerSecond: %s (expected: finite and > 0)", decodeTokensPerSecond);
    checkArgument(source != null && !source.isBlank(), "source: %s (expected: non-blank)", source);
  }
}
