package io.github.kvroute.examples.emulator;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;

/**
 * The emulated engine's tokenizer and block hashing: a token is {@code charsPerToken} characters, and
 * block {@code i}'s hash chains block {@code i-1}'s hash with the block's characters, as vLLM chains
 * its block hashes. It is deliberately not kvroute's {@code PromptKey} hashing: a gateway in front of
 * an emulated replica has to predict the engine's cache from the outside, as it would in front of a
 * real one.
 *
 * <p>Thread-safety: stateless, thread-safe.
 */
final class EmulatedTokenizer {
  private static final HashFunction HASH = Hashing.murmur3_128(0x6b76);
  private static final HashFunction TOKEN_HASH = Hashing.murmur3_32_fixed();

  private EmulatedTokenizer() {}

  /** Tokens in {@code text}: characters divided by {@code charsPerToken}, rounded up. */
  static int tokenCount(String text, int charsPerToken) {
    return (int) (((long) text.length() + charsPerToken - 1) / charsPerToken);
  }

  /** Vocabulary size of the emulated token ids (Llama 3's). */
  static final int VOCABULARY = 128_256;

  /**
   * Token ids of tokens {@code [from, to)} of {@code text}: each token's characters hashed into the
   * vocabulary, so equal text gives equal ids (what KV events carry with stored blocks).
   */
  static int[] tokenIds(String text, int charsPerToken, int from, int to) {
    int[] ids = new int[to - from];
    for (int t = from; t < to; t++) {
      int start = Math.min(text.length(), t * charsPerToken);
      int end = Math.min(text.length(), start + charsPerToken);
      ids[t - from] = Math.floorMod(
          TOKEN_HASH.hashString(text.subSequence(start, end), StandardCharsets.UTF_8).asInt(),
          VOCABULARY);
    }
    return ids;
  }

  /** Chained hashes of the full blocks of {@code text}; a partial last block is not hashed. */
  static long[] blockHashes(String text, EngineModel model) {
    int blocks = tokenCount(text, model.charsPerToken()) / model.blockSizeTokens();
    int charsPerBlock = model.blockSizeTokens() * model.charsPerToken();
    long[] hashes = new long[blocks];
    long parent = 0;
    for (int b = 0; b < blocks; b++) {
      int from = b * charsPerBlock;
      int to = Math.min(text.length(), from + charsPerBlock);
      parent = HASH.newHasher()
          .putLong(parent)
          .putString(text.subSequence(from, to), StandardCharsets.UTF_8)
          .hash().asLong();
      hashes[b] = parent;
    }
    return hashes;
  }
}
