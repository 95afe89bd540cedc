package io.github.kvroute.examples.emulator;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import io.github.kvroute.telemetry.vllm.VllmBlockHasher;
import java.nio.charset.StandardCharsets;

/**
 * The emulated engine's tokenizer and block hashing. A token is {@code charsPerToken} characters,
 * its id those characters hashed into a vocabulary of {@value #VOCABULARY}. Blocks are hashed as vLLM
 * hashes them when started with {@code PYTHONHASHSEED=}{@value #PYTHON_HASH_SEED} and
 * {@code --prefix-caching-hash-algo sha256_cbor} ({@link VllmBlockHasher}): block {@code i}'s hash
 * chains block {@code i-1}'s with the block's token ids, and KV events carry its low 64 bits. It is
 * deliberately not kvroute's {@code PromptKey} hashing: a gateway in front of an emulated replica has to
 * predict the engine's cache from the outside, as it would in front of a real one: by tokenizing the
 * prompt as the engine does ({@link #tokenIds(String, int)}) and hashing as vLLM does.
 *
 * <p>Thread-safety: stateless, thread-safe.
 */
public final class EmulatedTokenizer {
  /** Vocabulary size of the emulated token ids (Llama 3's). */
  static final int VOCABULARY = 128_256;
  /** The {@code PYTHONHASHSEED} the emulated engines behave as if started with. */
  public static final String PYTHON_HASH_SEED = "0";

  private static final HashFunction TOKEN_HASH = Hashing.murmur3_32_fixed();

  private EmulatedTokenizer() {}

  /** Tokens in {@code text}: characters divided by {@code charsPerToken}, rounded up. */
  static int tokenCount(String text, int charsPerToken) {
    return (int) (((long) text.length() + charsPerToken - 1) / charsPerToken);
  }

  /**
   * {@return the token ids of {@code text}, as an emulated engine tokenizes it}
   *
   * @param text the prompt the engine prefills (a chat's rendered template)
   * @param charsPerToken the engine's {@link EngineModel#charsPerToken()}
   */
  public static int[] tokenIds(String text, int charsPerToken) {
    return tokenIds(text, charsPerToken, 0, tokenCount(text, charsPerToken));
  }

  /**
   * {@return the block hasher of an emulated engine: vLLM's {@code sha256_cbor}}
   *
   * @param model the engine's model, whose block size the hasher takes
   */
  public static VllmBlockHasher hasher(EngineModel model) {
    return VllmBlockHasher.sha256Cbor(model.blockSizeTokens(), PYTHON_HASH_SEED);
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

  /** vLLM's hashes of the full blocks of {@code text}; a partial last block is not hashed. */
  static long[] blockHashes(String text, EngineModel model) {
    return hasher(model).blockHashes(tokenIds(text, model.charsPerToken()));
  }
}
