package io.github.kvroute.sim;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.OutcomeStatus;
import java.util.List;

/** What a {@link ReplicaEngine} tells the simulation it runs in. Called on the simulation's thread. */
interface ReplicaHost {
  long now();

  void schedule(long atNanos, Runnable action);

  /**
   * A prefill pass of {@code s} started with {@code cachedTokens} reused; {@code recomputedTokens} of
   * the tokens it computes are in blocks another replica holds at this moment.
   */
  void prefillStarted(Sequence s, int cachedTokens, long recomputedTokens, boolean firstPass);

  /** {@code s} emitted its first token now (once per attempt; a streaming gateway sees it). */
  void firstToken(ReplicaEngine replica, Sequence s);

  /**
   * The prefill half of a disaggregated attempt finished its prompt now; its blocks are released (the
   * prefix stays cached) and the KV is handed to {@code s}'s decode replica.
   */
  void prefilled(ReplicaEngine replica, Sequence s);

  /** {@code s} generated its last token now; its blocks are released. */
  void finished(ReplicaEngine replica, Sequence s);

  /** {@code s} ended without finishing; its blocks are released. */
  void failed(ReplicaEngine replica, Sequence s, OutcomeStatus status, String reason, boolean retryable);

  /** The replica computed {@code tokens} tokens (prefill plus generated) in a step ending at {@code atNanos}. */
  void work(ReplicaEngine replica, long tokens, long atNanos);

  /** KV events the replica published now. */
  void kvEvents(ReplicaEngine replica, List<KvEvent> events);
}
