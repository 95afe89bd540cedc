package io.github.kvroute.advisors;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.hash.Hashing;
import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.Request;
import java.nio.charset.StandardCharsets;

/**
 * A canary rollout's split: a share of sessions goes to the canary version, the rest to the stable
 * one, and a session never crosses versions because its arm is a pure function of its id (a hash,
 * no state to lose). Requests without a session are split by request id, so a retry stays in its arm
 * too. The model version is part of the cache namespace ({@link #namespace}): the two arms never
 * share cached prefixes, which is why their latencies must be compared with cache temperature
 * separated ({@link CanaryComparison}).
 *
 * <pre>{@code
 * CanarySplit split = CanarySplit.of("v1", "v2", 0.10);
 * String version = split.versionFor(request);
 * Request routed = request.toBuilder().modelVersion(version)
 *     .prompt(PromptKey.ofTokens(tokens, split.namespace(model, version))).build();
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class CanarySplit {
  /** Arms by the first 53 bits of a hash: shares are exact to 2^-53. */
  private static final double UNIT = 0x1.0p-53;

  private final String stable;
  private final String canary;
  private final double canaryShare;

  private CanarySplit(String stable, String canary, double canaryShare) {
    this.stable = stable;
    this.canary = canary;
    this.canaryShare = canaryShare;
  }

  /**
   * A split sending {@code canaryShare} of sessions to {@code canary}.
   *
   * @param stable the version most sessions keep; not blank
   * @param canary the version under test; not blank, not {@code stable}
   * @param canaryShare the share of sessions sent to {@code canary}, in {@code [0, 1]}
   * @return the split
   * @throws IllegalArgumentException if a version is blank, both are the same, or the share is not in
   *     [0, 1]
   */
  public static CanarySplit of(String stable, String canary, double canaryShare) {
    checkArgument(stable != null && !stable.isBlank(), "stable: %s (expected: non-blank)", stable);
    checkArgument(canary != null && !canary.isBlank(), "canary: %s (expected: non-blank)", canary);
    checkArgument(!stable.equals(canary), "canary: %s (expected: a version other than stable)",
        canary);
    checkArgument(canaryShare >= 0 && canaryShare <= 1, "canaryShare: %s (expected: in [0, 1])",
        canaryShare);
    return new CanarySplit(stable, canary, canaryShare);
  }

  /** {@return the version most sessions keep} */
  public String stable() {
    return stable;
  }

  /** {@return the version under test} */
  public String canary() {
    return canary;
  }

  /** {@return the share of sessions sent to the canary, in {@code [0, 1]}} */
  public double canaryShare() {
    return canaryShare;
  }

  /**
   * The version for {@code request}: by its session, else by its id.
   *
   * @param request the request; its session id, else its id, picks the arm
   * @return {@link #stable()} or {@link #canary()}
   */
  public String versionFor(Request request) {
    checkNotNull(request, "request: null (expected: non-null)");
    return versionFor(request.sessionId().orElse(request.id()));
  }

  /**
   * The version for the session (or request) {@code key}; the same key, the same version.
   *
   * @param key a session or request id
   * @return {@link #stable()} or {@link #canary()}
   */
  public String versionFor(String key) {
    checkNotNull(key, "key: null (expected: a session or request id)");
    long h = Hashing.murmur3_128().hashString(key, StandardCharsets.UTF_8).asLong();
    return (h >>> 11) * UNIT < canaryShare ? canary : stable;
  }

  /**
   * The cache namespace of {@code model} at {@code version}: the arms' caches never mix.
   *
   * @param model the model's name
   * @param version one of the split's two versions
   * @return the namespace to key the arm's prompts in
   */
  public CacheNamespace namespace(String model, String version) {
    checkArgument(stable.equals(version) || canary.equals(version),
        "version: %s (expected: %s or %s)", version, stable, canary);
    return CacheNamespace.of(model, version, null);
  }

  @Override
  public String toString() {
    return "CanarySplit{" + stable + " / " + canary + " " + canaryShare + "}";
  }
}
