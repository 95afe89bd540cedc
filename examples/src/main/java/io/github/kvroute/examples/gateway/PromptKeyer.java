package io.github.kvroute.examples.gateway;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.examples.openai.OpenAiBody;
import io.github.kvroute.telemetry.vllm.VllmBlockHasher;
import java.util.function.Function;

/**
 * How the gateway keys a request's prompt for the router's prefix index, in one of two modes:
 *
 * <ul>
 *   <li>{@link #approximate}: the prompt text, hashed by {@code PromptKey.ofText} (four characters a
 *       token). Needs nothing from the engines; the router then guesses what each replica caches from
 *       what it routed there, corrected by the replicas' reported {@code cached_tokens}.
 *   <li>{@link #exact}: the engine's own block hashes, from the prompt tokenized as the engine
 *       tokenizes it and hashed as vLLM hashes it ({@link VllmBlockHasher}), keyed by
 *       {@code PromptKey.ofBlockHashes}. These are the keys the replicas' KV events store (through a
 *       {@code VllmKvEventSubscriber} whose streams are in {@link #namespace}), so the router matches
 *       a request against what each replica reports it holds.
 * </ul>
 *
 * <p>Both key in {@link #namespace} of the request's model, so that two models never share a prefix.
 *
 * <p>Thread-safety: implementations must be thread-safe (called from the gateway's event loops); both
 * built here are immutable.
 */
public interface PromptKeyer {

  /**
   * The key of {@code body}'s prompt.
   *
   * @param body a parsed request body
   * @return the key, in {@link #namespace} of the body's model and {@link #blockSizeTokens} blocks
   * @throws RuntimeException if the prompt cannot be keyed (a tokenizer failed); the gateway answers
   *     500 and routes nothing
   */
  PromptKey key(OpenAiBody body);

  /**
   * {@return the block size of the keys, in tokens: the router's ({@code Router.Builder.blockSizeTokens})
   * must equal it}
   */
  int blockSizeTokens();

  /**
   * {@return the cache namespace requests for {@code model} are keyed in, and its KV-event streams
   * mapped to}
   *
   * @param model a request's {@code model}
   */
  static CacheNamespace namespace(String model) {
    return CacheNamespace.of(model);
  }

  /**
   * Approximate mode: the prompt text in blocks of {@code blockSizeTokens} tokens of
   * {@value PromptKey#DEFAULT_CHARS_PER_TOKEN} characters.
   *
   * @param blockSizeTokens the router's block size
   * @return the keyer
   * @throws IllegalArgumentException if {@code blockSizeTokens < 1}
   */
  static PromptKeyer approximate(int blockSizeTokens) {
    checkArgument(blockSizeTokens >= 1, "blockSizeTokens: %s (expected: >= 1)", blockSizeTokens);
    return new PromptKeyer() {
      @Override
      public PromptKey key(OpenAiBody body) {
        return PromptKey.ofText(body.prompt(), blockSizeTokens, PromptKey.DEFAULT_CHARS_PER_TOKEN,
            namespace(body.model()));
      }

      @Override
      public int blockSizeTokens() {
        return blockSizeTokens;
      }
    };
  }

  /**
   * Exact mode: {@code tokenizer} gives the token ids the engine will see for a request, and
   * {@code hasher} hashes them as the engines do (their {@code --block-size} and
   * {@code PYTHONHASHSEED}). For a real model the tokenizer is the model's own, over its chat template
   * applied to the request's messages ({@code body.json()}); in front of emulated replicas it is
   * {@code EmulatedTokenizer} over {@link OpenAiBody#prompt}, which is what they render. Requests with a
   * LoRA adapter or a {@code cache_salt} are keyed without them, so they match only what the same
   * prompt stored without them.
   *
   * @param tokenizer a request's token ids as the engine sees them; called on the gateway's event
   *     loops
   * @param hasher vLLM's block hashing, in the engines' block size
   * @return the keyer, whose block size is the hasher's
   */
  static PromptKeyer exact(Function<OpenAiBody, int[]> tokenizer, VllmBlockHasher hasher) {
    checkNotNull(tokenizer, "tokenizer: null (expected: the engines' tokenizer)");
    checkNotNull(hasher, "hasher: null (expected: e.g. VllmBlockHasher.sha256Cbor(16, seed))");
    return new PromptKeyer() {
      @Override
      public PromptKey key(OpenAiBody body) {
        int[] tokens = tokenizer.apply(body);
        return PromptKey.ofBlockHashes(hasher.blockHashes(tokens), hasher.blockSize(), tokens.length,
            namespace(body.model()));
      }

      @Override
      public int blockSizeTokens() {
        return hasher.blockSize();
      }
    };
  }
}
