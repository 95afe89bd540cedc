package io.github.kvroute.api;

import java.util.Arrays;

/**
 * The prefix identity of a prompt: a chain of 64-bit block hashes over fixed-size token blocks.
 *
 * <p>Block {@code i}'s hash covers blocks {@code 0..i}, so the first {@code k} hashes of a prompt do not
 * depend on anything after block {@code k-1}, and two prompts share their first {@code k} hashes exactly
 * when they share their first {@code k} blocks (up to 64-bit collisions). The chain starts from a
 * {@link CacheNamespace} seed, so model versions and adapters never share cache. A partial last block
 * is not hashed: engines do not share partial blocks either.
 *
 * <p>Three ways to build one:
 * <ul>
 *   <li>{@link #ofTokens} from token ids, the exact form;
 *   <li>{@link #ofText} from text in fixed-size character blocks, an approximation for hosts without a
 *       tokenizer (four characters per token, as llm-d's approximate prefix producer assumes);
 *   <li>{@link #ofBlockHashes} from hashes computed elsewhere (a tokenizer sidecar, an engine's KV
 *       events, Mooncake {@code hash_ids}).
 * </ul>
 *
 * <pre>{@code
 * PromptKey key = PromptKey.ofTokens(tokenIds, CacheNamespace.of("llama-3-70b", "v2", null));
 * }</pre>
 *
 * <p>No prompt text or token id is kept: a key holds its block hashes and counts only. Hashes are
 * unkeyed unless the namespace is {@linkplain CacheNamespace#keyed keyed} with a host secret.
 *
 * <p>Immutable and thread-safe. Building one allocates a single array; hashing allocates nothing per
 * block.
 */
public final class PromptKey {
  /** Tokens per block unless a caller says otherwise (vLLM's default block size). */
  public static final int DEFAULT_BLOCK_SIZE_TOKENS = 16;
  /** Characters per token assumed by {@link #ofText(CharSequence, CacheNamespace)}. */
  public static final int DEFAULT_CHARS_PER_TOKEN = 4;

  private static final long[] NO_BLOCKS = new long[0];

  private final long[] hashes;
  private final int blockSizeTokens;
  private final int tokenCount;
  private final long namespaceSeed;
  /** The namespace the chain started from; null for {@link #unhashed}. */
  private final CacheNamespace namespace;

  private PromptKey(long[] hashes, int blockSizeTokens, int tokenCount, CacheNamespace namespace) {
    this.hashes = hashes;
    this.blockSizeTokens = blockSizeTokens;
    this.tokenCount = tokenCount;
    this.namespace = namespace;
    this.namespaceSeed = namespace == null ? 0L : namespace.seed();
  }

  /**
   * Hashes token ids in blocks of {@value #DEFAULT_BLOCK_SIZE_TOKENS}.
   *
   * @param tokenIds the prompt's token ids; read, not kept
   * @param namespace the cache namespace of the request's model, version and adapter
   * @return the key; a partial last block is left unhashed
   */
  public static PromptKey ofTokens(int[] tokenIds, CacheNamespace namespace) {
    return ofTokens(tokenIds, DEFAULT_BLOCK_SIZE_TOKENS, namespace);
  }

  /**
   * Hashes token ids in blocks of {@code blockSizeTokens}; a partial last block is left unhashed.
   *
   * @param tokenIds the prompt's token ids; read, not kept
   * @param blockSizeTokens tokens per block, as the engine's KV block size
   * @param namespace the cache namespace of the request's model, version and adapter
   * @return the key
   * @throws IllegalArgumentException if {@code blockSizeTokens < 1}
   */
  public static PromptKey ofTokens(int[] tokenIds, int blockSizeTokens, CacheNamespace namespace) {
    Checks.notNull(tokenIds, "tokenIds");
    Checks.atLeast(blockSizeTokens, 1, "blockSizeTokens");
    long seed = Checks.notNull(namespace, "namespace").seed();
    int blocks = tokenIds.length / blockSizeTokens;
    long[] hashes = blocks == 0 ? NO_BLOCKS : new long[blocks];
    long h = seed;
    for (int b = 0; b < blocks; b++) {
      h = BlockHashing.tokens(h, tokenIds, b * blockSizeTokens, blockSizeTokens);
      hashes[b] = namespace.publish(h);
    }
    return new PromptKey(hashes, blockSizeTokens, tokenIds.length, namespace);
  }

  /**
   * Approximates a prompt from its text: blocks of {@value #DEFAULT_BLOCK_SIZE_TOKENS} x
   * {@value #DEFAULT_CHARS_PER_TOKEN} characters, token count = characters / 4 rounded up.
   *
   * @param text the prompt's text
   * @param namespace the cache namespace of the request's model, version and adapter
   * @return the approximate key
   */
  public static PromptKey ofText(CharSequence text, CacheNamespace namespace) {
    return ofText(text, DEFAULT_BLOCK_SIZE_TOKENS, DEFAULT_CHARS_PER_TOKEN, namespace);
  }

  /**
   * Approximates a prompt from its text in blocks of {@code blockSizeTokens x charsPerToken} characters.
   *
   * @param text the prompt's text
   * @param blockSizeTokens tokens per block; {@code >= 1}
   * @param charsPerToken characters taken for one token; {@code >= 1} (and the block at most
   *     {@code Integer.MAX_VALUE} characters)
   * @param namespace the cache namespace of the request's model, version and adapter
   * @return the approximate key; the token count is the characters over {@code charsPerToken},
   *     rounded up
   * @throws IllegalArgumentException if a size is below 1
   */
  public static PromptKey ofText(
      CharSequence text, int blockSizeTokens, int charsPerToken, CacheNamespace namespace) {
    Checks.notNull(text, "text");
    Checks.atLeast(blockSizeTokens, 1, "blockSizeTokens");
    Checks.atLeast(charsPerToken, 1, "charsPerToken");
    long seed = Checks.notNull(namespace, "namespace").seed();
    long charsPerBlockLong = (long) blockSizeTokens * charsPerToken;
    Checks.argument(charsPerBlockLong <= Integer.MAX_VALUE, "blockSizeTokens x charsPerToken",
        charsPerBlockLong, "<= " + Integer.MAX_VALUE);
    int charsPerBlock = (int) charsPerBlockLong;
    int blocks = text.length() / charsPerBlock;
    long[] hashes = blocks == 0 ? NO_BLOCKS : new long[blocks];
    long h = seed;
    for (int b = 0; b < blocks; b++) {
      h = BlockHashing.chars(h, text, b * charsPerBlock, charsPerBlock);
      hashes[b] = namespace.publish(h);
    }
    int tokens = (int) ((text.length() + (long) charsPerToken - 1) / charsPerToken);
    return new PromptKey(hashes, blockSizeTokens, tokens, namespace);
  }

  /**
   * Adopts block hashes computed elsewhere, which must already be prefix-chained (each hash standing for
   * its whole prefix), as vLLM KV events and Mooncake {@code hash_ids} are. Each is mapped into the
   * namespace by a bijection, so distinct inputs stay distinct. The last block may be partial here
   * (Mooncake hashes it): {@code blockCount <= ceil(tokenCount / blockSizeTokens)}.
   *
   * @param blockHashes the chained hashes, first block first; read, not kept
   * @param blockSizeTokens tokens per block; {@code >= 1}
   * @param tokenCount the prompt's length in tokens; {@code >= 0}
   * @param namespace the cache namespace of the request's model, version and adapter
   * @return the key
   * @throws IllegalArgumentException if the counts are inconsistent
   */
  public static PromptKey ofBlockHashes(
      long[] blockHashes, int blockSizeTokens, int tokenCount, CacheNamespace namespace) {
    Checks.notNull(blockHashes, "blockHashes");
    Checks.atLeast(blockSizeTokens, 1, "blockSizeTokens");
    Checks.atLeast(tokenCount, 0, "tokenCount");
    long seed = Checks.notNull(namespace, "namespace").seed();
    long maxBlocks = ((long) tokenCount + blockSizeTokens - 1) / blockSizeTokens;
    Checks.argument(blockHashes.length <= maxBlocks, "blockHashes.length", blockHashes.length,
        "<= ceil(tokenCount / blockSizeTokens) = " + maxBlocks);
    long[] hashes = blockHashes.length == 0 ? NO_BLOCKS : new long[blockHashes.length];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = namespace.publish(BlockHashing.foreign(seed, blockHashes[i]));
    }
    return new PromptKey(hashes, blockSizeTokens, tokenCount, namespace);
  }

  /**
   * A prompt with a known length and no prefix identity (the host has neither tokens nor text to
   * hash). It never matches the prefix index; length-aware policies still see its size.
   *
   * @param tokenCount the prompt's length in tokens; {@code >= 0}
   * @return a key with no blocks and no namespace
   */
  public static PromptKey unhashed(int tokenCount) {
    Checks.atLeast(tokenCount, 0, "tokenCount");
    return new PromptKey(NO_BLOCKS, DEFAULT_BLOCK_SIZE_TOKENS, tokenCount, null);
  }

  /**
   * The key a hash computed elsewhere takes in {@code namespace}: the same mapping
   * {@link #ofBlockHashes} applies, for hosts translating engine KV events.
   *
   * @param namespace an unkeyed namespace
   * @param foreignHash an engine's block hash
   * @return the kvroute block key of {@code foreignHash} in {@code namespace}
   * @throws IllegalArgumentException if {@code namespace} is {@linkplain CacheNamespace#keyed keyed}:
   *     engine KV events carry unkeyed hashes (exact mode cannot be keyed)
   */
  public static long namespacedHash(CacheNamespace namespace, long foreignHash) {
    return BlockHashing.foreign(
        Checks.notNull(namespace, "namespace").requireUnkeyed().seed(), foreignHash);
  }

  /** {@return number of hashed blocks} */
  public int blockCount() {
    return hashes.length;
  }

  /**
   * The chained hash of block {@code index}.
   *
   * @param index the block's position, first block 0
   * @return the block's hash, which stands for the whole prefix up to and including it
   * @throws IndexOutOfBoundsException if {@code index} is not in {@code [0, blockCount())}
   */
  public long blockHash(int index) {
    return hashes[index];
  }

  /** {@return a copy of all block hashes} */
  public long[] blockHashes() {
    return hashes.clone();
  }

  /** {@return tokens per hashed block} */
  public int blockSizeTokens() {
    return blockSizeTokens;
  }

  /** {@return prompt length in tokens (estimated for {@link #ofText})} */
  public int tokenCount() {
    return tokenCount;
  }

  /** {@return the seed of the namespace the chain started from; 0 for {@link #unhashed}} */
  public long namespaceSeed() {
    return namespaceSeed;
  }

  /**
   * {@return the namespace the chain started from; empty for {@link #unhashed}, which has no chain}
   * A {@link Request} checks it against its model, version and adapter.
   */
  public java.util.Optional<CacheNamespace> namespace() {
    return java.util.Optional.ofNullable(namespace);
  }

  /** {@link #namespace()} without the allocation, for {@link Request}'s check. */
  CacheNamespace namespaceOrNull() {
    return namespace;
  }

  /**
   * Tokens covered by the first {@code blocks} hashed blocks, capped at the prompt length.
   *
   * @param blocks a number of leading blocks; more than {@link #blockCount()} counts as all
   * @return the tokens they cover, at most {@link #tokenCount()}
   * @throws IllegalArgumentException if {@code blocks} is negative
   */
  public int tokensInBlocks(int blocks) {
    Checks.atLeast(blocks, 0, "blocks");
    return (int) Math.min((long) Math.min(blocks, hashes.length) * blockSizeTokens, tokenCount);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PromptKey other
        && blockSizeTokens == other.blockSizeTokens
        && tokenCount == other.tokenCount
        && namespaceSeed == other.namespaceSeed
        && Arrays.equals(hashes, other.hashes);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(hashes) + tokenCount;
  }

  @Override
  public String toString() {
    return "PromptKey{tokens=" + tokenCount + ", blocks=" + hashes.length + "x" + blockSizeTokens + "}";
  }
}
