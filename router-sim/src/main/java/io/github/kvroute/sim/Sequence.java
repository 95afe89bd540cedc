package io.github.kvroute.sim;

import io.github.kvroute.api.PromptKey;

/**
 * One attempt of one request on one replica: where it is in the engine (waiting, prefilling, decoding),
 * what it has generated, and which KV blocks it holds (pinned cached blocks plus private ones).
 *
 * <p>Not thread-safe: owned by its replica's engine.
 */
final class Sequence {
  final RequestState request;
  final int attempt;
  final int replica;
  final long routedEpoch;
  final PromptKey prompt;
  final int promptTokens;
  final int outputTokens;

  long enqueuedAtNanos = -1;
  long firstAdmittedAtNanos = -1;
  int firstCachedTokens;
  long firstTokenAtNanos = -1;
  /** Output tokens emitted so far (the first token counts). */
  int generated;
  /** Tokens still to compute in the current prefill pass; 0 while decoding. */
  int prefillRemaining;
  /** Whether the current prefill pass has had its first chunk (its overhead is paid). */
  boolean prefillStarted;
  /** Prefill tokens computed in the step in progress. */
  int chunk;
  /** Whether the sequence decodes in the step in progress. */
  boolean decoding;
  /** Uncached prompt tokens as of arrival, reported as queued prefill while waiting. */
  int estimatedUncached;
  boolean running;

  // disaggregated attempts (prefill on one replica, decode on another)
  /** On the prefill replica: hand the KV to this decode replica when the prefill ends; -1 if none. */
  int decodeReplica = -1;
  /** The decode replica's epoch the router chose. */
  long decodeEpoch;
  /** On the decode replica: the prompt's KV arrived by transfer (no prefill here unless preempted). */
  boolean kvArrived;
  /** On the decode replica: the prefill replica its KV came from; -1 if none. */
  int pairedFrom = -1;

  /** Lost the race to a hedge of the same request: dropped at its first token. */
  boolean cancelled;

  /**
   * Blocks {@code [0, pinnedCount)}: the cached blocks it pins; {@code [pinnedCount, reservedTo)}:
   * the blocks its prefill in progress reserved, to be cached when it completes.
   */
  CachedBlock[] pins;
  int pinnedCount;
  int reservedTo;
  int privateBlocks;

  Sequence(RequestState request, int attempt, int replica, long routedEpoch) {
    this.request = request;
    this.attempt = attempt;
    this.replica = replica;
    this.routedEpoch = routedEpoch;
    this.prompt = request.request.prompt();
    this.promptTokens = request.request.promptTokens();
    this.outputTokens = request.request.outputTokens();
  }

  /** Whether this is the prefill half of a disaggregated attempt. */
  boolean handsOff() {
    return decodeReplica >= 0;
  }

  /** Tokens whose KV the sequence holds in its current pass: the prompt plus what it generated. */
  int tokensToHold() {
    return promptTokens + generated;
  }

  int blocksHeld() {
    return pinnedCount + privateBlocks;
  }

  boolean isPrefilling() {
    return prefillRemaining > 0;
  }

  @Override
  public String toString() {
    return request.request.id() + "#" + attempt;
  }
}
