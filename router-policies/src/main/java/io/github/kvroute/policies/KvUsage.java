package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import java.util.OptionalDouble;

/** KV-cache usage of a candidate as the KV-aware policies read it. Stateless. */
final class KvUsage {
  private KvUsage() {}

  /**
   * The view's usage (the report plus this router's sends since it) when the router could compute it,
   * else the report's own {@code used / total} blocks (known without a block size), else empty.
   */
  static OptionalDouble of(CandidateView c) {
    OptionalDouble v = c.kvUtilization();
    return v.isPresent() ? v : c.snapshot().kvUtilization();
  }
}
