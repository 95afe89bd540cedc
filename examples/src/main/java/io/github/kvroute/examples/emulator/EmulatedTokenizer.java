package io.github.kvroute.examples.emulator;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hasher;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;

/**
 * The emulated engine's tokenizer and block hashing. A token is {@code charsPerToken} characters,
 * its id those characters hashed into a vocabulary of {@value #VOCABULARY}; block {@code i}'s hash
 * chains block {@code i-1}'s hash with the block's token ids, as vLLM hashes {@code (parent, token
 * ids)} (vLLM uses SHA-256 over CBOR; the emulator a 128-bit MurmurHash3, kept to its low 64 bits as
 * vLLM's KV events keep theirs). It is deliberately not kvroute's {@code PromptKey} hashing: a gateway
 * in front of an emulated replica has to predict the engine's cache from the outside, as it would in
 * front of a real one.
 *
 * <p>Thread-safety: stateless, thread-safe.
 */
final class EmulatedTokenizer {
  /** Vocabulary size of the emulated token ids (Llama 3's). */
  static final int VOCABULARY = 128_256;

  private static final HashFunction BLOCK_HASH = Hashing.murmur3_128(0x6b76);
  private static final HashFunction TOKEN_HASH = Hashing.murmur3_32_fixed();

  private EmulatedTokenizer() {}

  /** Tokens in {@code text}: characters divided by {@code charsPerToken}, rounded up. */
  static int tokenCount(String text, int charsPerToken) {
    return (int) (((long) text.length() + charsPerToken - 1) / charsPerToken);
  }

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
    int block = model.blockSizeTokens();
    int blocks = tokenCount(text, model.charsPerToken()) / block;
    int[] ids = tokenIds(text, model.charsPerToken(), 0, blocks * block);
    long[] hashes = new long[blocks];
    long parent = 0;
    for (int b = 0; b < blocks; b++) {
      Hasher h = BLOCK_HASH.newHasher().putLong(parent);
      for (int t = b * block; t < (b + 1) * block; t++) {
        h.putInt(ids[t]);
      }
      parent = h.hash().asLong();
      hashes[b] = parent;
    }
    return hashes;
  }
}
