package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import java.util.OptionalLong;

/**
 * Whether a decode replica can take a disaggregated request's KV, and when: its prompt and planned
 * output must fit the replica's free KV after this router's sends and in-flight reservations there
 * (attempts whose KV is still on its way). A request that does not fit now waits for finishing
 * requests to free the deficit, at the rate this router has seen them free KV there; with no such
 * rate, or a request larger than the replica's whole cache, it never fits. A replica that does not
 * report its KV is taken to fit: nothing says otherwise.
 *
 * <p>Example: 4,000 free tokens and a 6,000-token prompt with 500 planned output tokens leave a
 * deficit of 2,500; at 5,000 tokens freed per second it fits in 500 ms, so a pair whose prefill
 * ends within 500 ms would hand over KV the replica cannot hold yet.
 *
 * <p>Thread-safety: stateless.
 */
final class DecodeFit {
  private DecodeFit() {}

  /** The KV a decode replica holds for {@code request}: its whole prompt and its planned output. */
  static long neededTokens(Request request) {
    return (long) request.promptTokens() + request.plannedOutputTokens();
  }

  /** Milliseconds until {@code decode} can hold {@code request}: 0 now, +Infinity never. */
  static double waitMillis(Request request, CandidateView decode, double freedTokensPerSecond) {
    OptionalLong free = decode.freeKvTokens();
    if (free.isEmpty()) {
      return 0;
    }
    long need = neededTokens(request);
    long deficit = need - free.getAsLong();
    if (deficit <= 0) {
      return 0;
    }
    OptionalLong capacity = decode.snapshot().kvCapacityTokens();
    if (freedTokensPerSecond <= 0 || (capacity.isPresent() && need > capacity.getAsLong())) {
      return Double.POSITIVE_INFINITY;
    }
    return 1000.0 * deficit / freedTokensPerSecond;
  }
}
