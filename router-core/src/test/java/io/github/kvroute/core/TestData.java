package io.github.kvroute.core;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import java.util.Arrays;

/** Shared builders for router-core tests: prompts, reports, requests and outcomes. */
final class TestData {
  static final String MODEL = "llama-3-70b";
  static final CacheNamespace NS = CacheNamespace.of(MODEL);

  private TestData() {}

  /** {@code n} token ids, distinct per {@code seed} from the first token on. */
  static int[] tokens(int n, int seed) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = seed * 100_003 + i;
    }
    return t;
  }

  /** A prompt of {@code n} tokens in blocks of 16, in the default namespace. */
  static PromptKey prompt(int n, int seed) {
    return PromptKey.ofTokens(tokens(n, seed), NS);
  }

  /** A READY report for {@link #MODEL} at epoch 0 (callers add load fields). */
  static ReplicaSnapshot.Builder ready(String replicaId) {
    return ReplicaSnapshot.newBuilder().replicaId(replicaId).model(MODEL);
  }

  /** A READY report whose only load field is the replica's own queue estimate. */
  static ReplicaSnapshot queued(String replicaId, double queueMillis) {
    return ready(replicaId).estimatedQueueDelayMillis(queueMillis).build();
  }

  static Request.Builder request(String id, PromptKey prompt) {
    return Request.newBuilder().id(id).model(MODEL).prompt(prompt);
  }

  /** The engine reports the first {@code blocks} blocks of {@code prompt} resident on the replica. */
  static KvEvent storedPrefix(String replicaId, long epoch, PromptKey prompt, int blocks) {
    return KvEvent.stored(replicaId, epoch, Arrays.copyOf(prompt.blockHashes(), blocks));
  }

  /** The outcome of a routed decision, with the replica and epoch it names. */
  static Outcome.Builder outcome(Request request, RoutingDecision decision, OutcomeStatus status) {
    return Outcome.newBuilder().requestId(request.id()).attempt(request.attempt())
        .replicaId(decision.replicaId()).epoch(decision.epoch()).status(status);
  }
}
