package io.github.kvroute.examples.emulator;

/**
 * Receives one emulated request's output, in order: tokens, then exactly one of {@link #finished} or
 * {@link #aborted}. Called on the engine's scheduler thread, outside its lock; implementations must not
 * block.
 */
interface TokenSink {
  /** Token {@code index} (0 for the first) was generated; {@code text} is its text. */
  void token(int index, String text);

  /** Generation ended after {@code usage.completionTokens()} tokens. */
  void finished(Usage usage);

  /** The engine stopped before the request finished (killed or closed). */
  void aborted(String reason);

  /**
   * Token counts of a finished request, as vLLM's {@code usage} reports them.
   *
   * @param promptTokens prompt length in tokens
   * @param cachedTokens prompt tokens reused from the prefix cache
   * @param completionTokens generated tokens
   */
  record Usage(int promptTokens, int cachedTokens, int completionTokens) {}
}
