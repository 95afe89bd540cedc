package io.github.kvroute.policies;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;

/** Requests for table-driven policy tests (contexts come from the testkit's FixedRoutingContext). */
final class TestRequests {
  static final String MODEL = "model";

  private TestRequests() {}

  /** A request whose prompt is {@code tokens} distinct-ish token ids from {@code seed}. */
  static Request request(int tokens, int seed) {
    return Request.newBuilder().id("r-" + seed + "-" + tokens).model(MODEL)
        .prompt(PromptKey.ofTokens(tokens(tokens, seed), CacheNamespace.of(MODEL))).build();
  }

  /** {@link #request(int, int)} for LoRA {@code adapter}, its prompt hashed in the adapter's namespace. */
  static Request request(int tokens, int seed, String adapter) {
    return Request.newBuilder().id("r-" + seed + "-" + tokens).model(MODEL).adapter(adapter)
        .prompt(PromptKey.ofTokens(tokens(tokens, seed), CacheNamespace.of(MODEL, null, adapter)))
        .build();
  }

  static int[] tokens(int n, int seed) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = (seed * 7919 + i * 31) & 0xffff;
    }
    return t;
  }
}
