package io.github.kvroute.examples.emulator;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;

/**
 * How an emulated engine spends time and memory: a paged KV cache of {@link #kvCacheBlocks} blocks of
 * {@link #blockSizeTokens} tokens, prefill at {@link #prefillNanosPerToken} per uncached prompt token,
 * one decode step of {@link #decodeStepNanos} per generated token of the whole running batch, at most
 * {@link #maxRunning} sequences in the batch and {@link #maxWaiting} queued behind it.
 *
 * <p>Times are wall-clock but scaled down, so a test runs hundreds of requests in seconds; only their
 * ratios matter to a router (prefill against decode, cached against uncached). {@link #scaledDown()}
 * keeps a real GPU's ratio of prefill throughput to decode step time (about 10,000 prompt tokens per
 * second against a 25 ms step) at 1 ms per 1,000 prompt tokens.
 *
 * <p>The constructor rejects a field outside the range its description gives
 * ({@code IllegalArgumentException}, naming the field). Immutable and thread-safe.
 *
 * @param blockSizeTokens tokens per KV block (vLLM's default is 16)
 * @param kvCacheBlocks blocks in the cache ({@code num_gpu_blocks})
 * @param charsPerToken characters the emulated tokenizer puts in one token
 * @param prefillNanosPerToken wall time per uncached prompt token
 * @param decodeStepNanos wall time of one decode step of the batch
 * @param maxRunning sequences in the running batch ({@code max_num_seqs})
 * @param maxWaiting requests queued behind the batch; more are refused with 503 (the bound on the
 *     emulator's queue; vLLM itself queues without bound)
 */
public record EngineModel(int blockSizeTokens, int kvCacheBlocks, int charsPerToken,
    long prefillNanosPerToken, long decodeStepNanos, int maxRunning, int maxWaiting) {

  public EngineModel {
    checkArgument(blockSizeTokens >= 1, "blockSizeTokens: %s (expected: >= 1)", blockSizeTokens);
    checkArgument(kvCacheBlocks >= 1, "kvCacheBlocks: %s (expected: >= 1)", kvCacheBlocks);
    checkArgument(charsPerToken >= 1, "charsPerToken: %s (expected: >= 1)", charsPerToken);
    checkArgument(prefillNanosPerToken >= 0,
        "prefillNanosPerToken: %s (expected: >= 0)", prefillNanosPerToken);
    checkArgument(decodeStepNanos >= 0, "decodeStepNanos: %s (expected: >= 0)", decodeStepNanos);
    checkArgument(maxRunning >= 1, "maxRunning: %s (expected: >= 1)", maxRunning);
    checkArgument(maxWaiting >= 0, "maxWaiting: %s (expected: >= 0)", maxWaiting);
  }

  /**
   * 16-token blocks, 8,192 of them (131,072 tokens), four characters per token, 1 ms per 1,000
   * uncached prompt tokens, a 250 µs decode step, 32 running and 1,024 waiting.
   *
   * @return the model the demo and the tests run
   */
  public static EngineModel scaledDown() {
    return new EngineModel(16, 8_192, 4, 1_000, 250_000, 32, 1_024);
  }

  /**
   * {@return this model with a cache of {@code blocks} blocks}
   *
   * @param blocks {@code num_gpu_blocks}, {@code >= 1}
   */
  public EngineModel withKvCacheBlocks(int blocks) {
    return new EngineModel(blockSizeTokens, blocks, charsPerToken, prefillNanosPerToken,
        decodeStepNanos, maxRunning, maxWaiting);
  }

  /**
   * {@return the wall time to prefill {@code tokens} uncached prompt tokens}
   *
   * @param tokens prompt tokens the prefix cache did not serve
   */
  public Duration prefillTime(long tokens) {
    return Duration.ofNanos(tokens * prefillNanosPerToken);
  }
}
