package io.github.kvroute.sim;

/**
 * The cumulative counters and histogram totals a stock engine exports, kept the way each engine keeps
 * them, so a telemetry profile can report exactly what a scrape of {@code /metrics} would read.
 *
 * <ul>
 *   <li>vLLM counts a request's prompt tokens (cached ones included) when its first token comes out,
 *       its prefix-cache queries and hits (in tokens) each time the scheduler admits it (again after a
 *       preemption), its TTFT at the first token, and its queue and prefill times when it finishes
 *       ({@code vllm:request_queue_time_seconds}: arrival to first scheduled;
 *       {@code vllm:request_prefill_time_seconds}: first scheduled to first token).
 *   <li>SGLang counts prompt and generated tokens when a request finishes, and its
 *       {@code cache_hit_rate} gauge is that of the latest prefill batch.
 * </ul>
 *
 * <p>Reset with the process (a restart starts every counter from zero, as a new engine does).
 *
 * <p>Not thread-safe: owned by one {@link ReplicaEngine}.
 */
final class EngineCounters {
  long generatedTokens;
  long preemptions;
  long promptTokensAtFirstToken;
  long promptTokensFinished;
  long generatedTokensFinished;
  long prefixCacheQueries;
  long prefixCacheHits;
  long ttftNanosSum;
  long ttftCount;
  long queueNanosSum;
  long prefillNanosSum;
  long finishedCount;
  /** Cached over prompt tokens of the latest step that admitted requests; NaN before one. */
  double lastPrefillBatchHitRate = Double.NaN;

  private long batchQueried;
  private long batchHits;

  /** The scheduler admitted a sequence holding {@code tokens}, {@code cached} of them cached. */
  void admitted(int tokens, int cached) {
    prefixCacheQueries += tokens;
    prefixCacheHits += cached;
    batchQueried += tokens;
    batchHits += cached;
  }

  /** The admissions of a step are over. */
  void endAdmissions() {
    if (batchQueried > 0) {
      lastPrefillBatchHitRate = (double) batchHits / batchQueried;
    }
    batchQueried = 0;
    batchHits = 0;
  }

  void firstToken(Sequence s, long nowNanos) {
    promptTokensAtFirstToken += s.promptTokens;
    ttftNanosSum += nowNanos - s.enqueuedAtNanos;
    ttftCount++;
  }

  void finished(Sequence s) {
    promptTokensFinished += s.promptTokens;
    generatedTokensFinished += s.generated;
    queueNanosSum += s.firstAdmittedAtNanos - s.enqueuedAtNanos;
    prefillNanosSum += s.firstTokenAtNanos - s.firstAdmittedAtNanos;
    finishedCount++;
  }

  void reset() {
    generatedTokens = 0;
    preemptions = 0;
    promptTokensAtFirstToken = 0;
    promptTokensFinished = 0;
    generatedTokensFinished = 0;
    prefixCacheQueries = 0;
    prefixCacheHits = 0;
    ttftNanosSum = 0;
    ttftCount = 0;
    queueNanosSum = 0;
    prefillNanosSum = 0;
    finishedCount = 0;
    lastPrefillBatchHitRate = Double.NaN;
    batchQueried = 0;
    batchHits = 0;
  }
}
