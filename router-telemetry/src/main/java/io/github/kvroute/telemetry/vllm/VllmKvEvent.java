package io.github.kvroute.telemetry.vllm;

import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One event of a vLLM KV-event batch, as vLLM's {@code vllm/distributed/kv_events.py} defines them:
 * {@code BlockStored(block_hashes, parent_block_hash, token_ids, block_size, lora_id, medium,
 * lora_name, extra_keys, group_idx, ...)}, {@code BlockRemoved(block_hashes, medium, group_idx)} and
 * {@code AllBlocksCleared()}.
 *
 * <p>Block hashes are vLLM's external block hashes as 64-bit values: vLLM publishes the low 64 bits of
 * each block's hash as an unsigned integer (its default, {@code VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES});
 * when it publishes the raw hash bytes instead, the decoder takes the same low 64 bits (the last eight
 * bytes, big-endian), so both forms give the same values. Unsigned values above {@code 2^63 - 1} are
 * kept as their two's-complement {@code long}.
 *
 * <p>Fields kvroute does not use ({@code lora_id}, {@code extra_keys}, the KV-cache spec) are not kept.
 * Immutable and thread-safe.
 */
public final class VllmKvEvent {

  /** The event's type, named by its msgspec tag. */
  public enum Kind {
    /** Blocks the engine cached, chained on a parent block: the router's index gains them. */
    BLOCK_STORED("BlockStored"),
    /** Blocks the engine evicted: the router's index drops them. */
    BLOCK_REMOVED("BlockRemoved"),
    /** The engine dropped its whole prefix cache (a reset): the replica's index is emptied. */
    ALL_BLOCKS_CLEARED("AllBlocksCleared");

    private final String tag;

    Kind(String tag) {
      this.tag = tag;
    }

    /** {@return the msgspec tag on the wire ({@code "BlockStored"}, ...)} */
    public String tag() {
      return tag;
    }

    static Optional<Kind> ofTag(String tag) {
      for (Kind k : values()) {
        if (k.tag.equals(tag)) {
          return Optional.of(k);
        }
      }
      return Optional.empty();
    }
  }

  private static final long[] NO_HASHES = new long[0];
  private static final int[] NO_TOKENS = new int[0];

  private final Kind kind;
  private final long[] blockHashes;
  private final OptionalLong parentBlockHash;
  private final int[] tokenIds;
  private final int blockSize;
  private final Optional<String> loraName;
  private final Optional<String> medium;
  private final OptionalInt groupIdx;

  private VllmKvEvent(Kind kind, long[] blockHashes, OptionalLong parentBlockHash, int[] tokenIds,
      int blockSize, Optional<String> loraName, Optional<String> medium, OptionalInt groupIdx) {
    this.kind = kind;
    this.blockHashes = blockHashes;
    this.parentBlockHash = parentBlockHash;
    this.tokenIds = tokenIds;
    this.blockSize = blockSize;
    this.loraName = loraName;
    this.medium = medium;
    this.groupIdx = groupIdx;
  }

  /**
   * A {@code BlockStored} on the GPU, no adapter, group unset.
   *
   * @param blockHashes the stored blocks' hashes, parent first (copied)
   * @param parentBlockHash the hash of the block before the first one; empty for a prompt's first block
   * @param tokenIds the stored blocks' token ids, {@code blockSize} per block (copied)
   * @param blockSize tokens per block, the engine's {@code --block-size}
   * @return the event
   * @throws IllegalArgumentException if {@code blockSize < 1}
   */
  public static VllmKvEvent stored(long[] blockHashes, OptionalLong parentBlockHash, int[] tokenIds,
      int blockSize) {
    if (blockSize < 1) {
      throw new IllegalArgumentException("blockSize: " + blockSize + " (expected: >= 1)");
    }
    return new VllmKvEvent(Kind.BLOCK_STORED, Objects.requireNonNull(blockHashes, "blockHashes").clone(),
        Objects.requireNonNull(parentBlockHash, "parentBlockHash"),
        Objects.requireNonNull(tokenIds, "tokenIds").clone(), blockSize, Optional.empty(),
        Optional.of(VllmKvEvents.MEDIUM_GPU), OptionalInt.empty());
  }

  /**
   * {@return a {@code BlockRemoved} on the GPU, group unset}
   *
   * @param blockHashes the evicted blocks' hashes (copied)
   */
  public static VllmKvEvent removed(long... blockHashes) {
    return new VllmKvEvent(Kind.BLOCK_REMOVED, Objects.requireNonNull(blockHashes, "blockHashes").clone(),
        OptionalLong.empty(), NO_TOKENS, 0, Optional.empty(), Optional.of(VllmKvEvents.MEDIUM_GPU),
        OptionalInt.empty());
  }

  /** {@return an {@code AllBlocksCleared}} */
  public static VllmKvEvent allCleared() {
    return new VllmKvEvent(Kind.ALL_BLOCKS_CLEARED, NO_HASHES, OptionalLong.empty(), NO_TOKENS, 0,
        Optional.empty(), Optional.empty(), OptionalInt.empty());
  }

  static VllmKvEvent decoded(Kind kind, long[] blockHashes, OptionalLong parent, int[] tokenIds,
      int blockSize, Optional<String> loraName, Optional<String> medium, OptionalInt groupIdx) {
    return new VllmKvEvent(kind, blockHashes, parent, tokenIds, blockSize, loraName, medium, groupIdx);
  }

  /**
   * {@return this event with its adapter's name ({@code lora_name}); only {@code BlockStored} carries
   * one}
   *
   * @param name the LoRA adapter the blocks were computed with
   */
  public VllmKvEvent withLoraName(String name) {
    return new VllmKvEvent(kind, blockHashes, parentBlockHash, tokenIds, blockSize,
        Optional.of(Objects.requireNonNull(name, "name")), medium, groupIdx);
  }

  /**
   * {@return this event on another storage tier, or none}
   *
   * @param medium vLLM's {@code medium}: {@code "GPU"}, {@code "CPU"}, ...; null for none (older vLLM)
   */
  public VllmKvEvent withMedium(String medium) {
    return new VllmKvEvent(kind, blockHashes, parentBlockHash, tokenIds, blockSize, loraName,
        Optional.ofNullable(medium), groupIdx);
  }

  /**
   * {@return this event in another KV-cache group}
   *
   * @param group vLLM's {@code group_idx} (hybrid models have several groups)
   */
  public VllmKvEvent withGroupIdx(int group) {
    return new VllmKvEvent(kind, blockHashes, parentBlockHash, tokenIds, blockSize, loraName, medium,
        OptionalInt.of(group));
  }

  /** {@return the event's type} */
  public Kind kind() {
    return kind;
  }

  /** {@return the number of block hashes} */
  public int blockCount() {
    return blockHashes.length;
  }

  /** {@return a copy of the block hashes, each the low 64 bits of vLLM's block hash} */
  public long[] blockHashes() {
    return blockHashes.clone();
  }

  /** {@return the hash of the block before the first one here; empty for a chain's first block} */
  public OptionalLong parentBlockHash() {
    return parentBlockHash;
  }

  /** {@return a copy of the token ids of the stored blocks ({@code BlockStored} only; else empty)} */
  public int[] tokenIds() {
    return tokenIds.clone();
  }

  /** {@return the tokens per block ({@code BlockStored} only; 0 otherwise)} */
  public int blockSize() {
    return blockSize;
  }

  /** {@return the LoRA adapter the stored blocks were computed with; empty without one} */
  public Optional<String> loraName() {
    return loraName;
  }

  /** {@return the storage tier; empty when the engine does not say (older vLLM: the GPU)} */
  public Optional<String> medium() {
    return medium;
  }

  /** {@return the KV-cache group ({@code group_idx}); empty when the engine does not say} */
  public OptionalInt groupIdx() {
    return groupIdx;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VllmKvEvent e && kind == e.kind && blockSize == e.blockSize
        && Arrays.equals(blockHashes, e.blockHashes) && parentBlockHash.equals(e.parentBlockHash)
        && Arrays.equals(tokenIds, e.tokenIds) && loraName.equals(e.loraName)
        && medium.equals(e.medium) && groupIdx.equals(e.groupIdx);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, Arrays.hashCode(blockHashes), parentBlockHash, blockSize);
  }

  @Override
  public String toString() {
    return kind.tag() + "{blocks=" + blockHashes.length
        + (tokenIds.length > 0 ? ", tokens=" + tokenIds.length : "")
        + medium.map(m -> ", " + m).orElse("") + loraName.map(l -> ", lora=" + l).orElse("") + "}";
  }
}
