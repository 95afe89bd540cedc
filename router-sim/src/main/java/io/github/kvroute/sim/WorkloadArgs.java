package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;

/** The argument checks every {@link Workload#requests} applies. */
final class WorkloadArgs {
  private WorkloadArgs() {}

  static void check(int count, double rateScale, int blockSizeTokens) {
    checkArgument(count >= 1, "count: %s (expected: >= 1)", count);
    checkArgument(rateScale > 0 && Double.isFinite(rateScale),
        "rateScale: %s (expected: finite and > 0)", rateScale);
    checkArgument(blockSizeTokens >= 1, "blockSizeTokens: %s (expected: >= 1)", blockSizeTokens);
  }
}
