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

  private EmulatedTokenizer() {}

  /** Tokens in {@code text}: characters divided by {@code charsPerToken}, rounded up. */
  static int tokenCount(String text, int charsPerToken) {
    return (int) (((long) text.length() + charsPerToken - 1) / charsPerToken);
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
