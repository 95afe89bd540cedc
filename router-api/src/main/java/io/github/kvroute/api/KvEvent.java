package io.github.kvroute.api;

import java.util.Arrays;

/**
 * A change to one replica's KV cache as the engine reports it (vLLM and SGLang publish
 * {@code BlockStored}, {@code BlockRemoved} and {@code AllBlocksCleared}). Feeding these puts the
 * replica's entries in the prefix index in <em>exact</em> mode: the router stops guessing what the
 * replica holds. Every router that consumes the same event stream converges on the same index.
 *
 * <p>Block keys are in kvroute's key space (the values of {@link PromptKey#blockHash(int)}). Engine
 * hashes are mapped with {@link #storedEngineHashes}/{@link #removedEngineHashes}, which apply the
 * mapping {@link PromptKey#ofBlockHashes} uses, so requests keyed from the same engine hashes match.
 *
 * <p>Immutable and thread-safe.
 */
public final class KvEvent {

  /** The kind of change. */
  public enum Type {
    /** Blocks became resident. */
    STORED,
    /** Blocks were evicted. */
    REMOVED,
    /** The whole cache was dropped. */
    CLEARED
  }

  private static final long[] NONE = new long[0];

  private final Type type;
  private final String replicaId;
  private final long epoch;
  private final long[] blockKeys;

  private KvEvent(Type type, String replicaId, long epoch, long[] blockKeys) {
    this.type = type;
    this.replicaId = Checks.notBlank(replicaId, "replicaId");
    this.epoch = Checks.epoch(epoch);
    this.blockKeys = blockKeys;
  }

  /** Blocks with these kvroute keys became resident on the replica. */
  public static KvEvent stored(String replicaId, long epoch, long... blockKeys) {
    return new KvEvent(Type.STORED, replicaId, epoch, Checks.notNull(blockKeys, "blockKeys").clone());
  }

  /** Blocks with these kvroute keys were evicted from the replica. */
  public static KvEvent removed(String replicaId, long epoch, long... blockKeys) {
    return new KvEvent(Type.REMOVED, replicaId, epoch, Checks.notNull(blockKeys, "blockKeys").clone());
  }

  /** The replica dropped its whole cache. */
  public static KvEvent cleared(String replicaId, long epoch) {
    return new KvEvent(Type.CLEARED, replicaId, epoch, NONE);
  }

  /**
   * {@link #stored} from engine hashes in {@code namespace}.
   *
   * @throws IllegalArgumentException if {@code namespace} is {@linkplain CacheNamespace#keyed keyed}
   *     (engine hashes are unkeyed: exact mode cannot be keyed)
   */
  public static KvEvent storedEngineHashes(
      String replicaId, long epoch, CacheNamespace namespace, long... engineHashes) {
    return new KvEvent(Type.STORED, replicaId, epoch, mapped(namespace, engineHashes));
  }

  /**
   * {@link #removed} from engine hashes in {@code namespace}.
   *
   * @throws IllegalArgumentException if {@code namespace} is {@linkplain CacheNamespace#keyed keyed}
   */
  public static KvEvent removedEngineHashes(
      String replicaId, long epoch, CacheNamespace namespace, long... engineHashes) {
    return new KvEvent(Type.REMOVED, replicaId, epoch, mapped(namespace, engineHashes));
  }

  private static long[] mapped(CacheNamespace namespace, long[] engineHashes) {
    long seed = Checks.notNull(namespace, "namespace").requireUnkeyed().seed();
    long[] keys = Checks.notNull(engineHashes, "engineHashes").clone();
    for (int i = 0; i < keys.length; i++) {
      keys[i] = BlockHashing.foreign(seed, keys[i]);
    }
    return keys;
  }

  public Type type() {
    return type;
  }

  public String replicaId() {
    return replicaId;
  }

  public long epoch() {
    return epoch;
  }

  public int blockCount() {
    return blockKeys.length;
  }

  /** The key of block {@code index} of this event. */
  public long blockKey(int index) {
    return blockKeys[index];
  }

  /** A copy of the block keys. */
  public long[] blockKeys() {
    return blockKeys.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KvEvent other && type == other.type && epoch == other.epoch
        && replicaId.equals(other.replicaId) && Arrays.equals(blockKeys, other.blockKeys);
  }

  @Override
  public int hashCode() {
    return (type.hashCode() * 31 + replicaId.hashCode()) * 31 + Arrays.hashCode(blockKeys);
  }

  @Override
  public String toString() {
    return "KvEvent{" + type + " " + replicaId + "#" + epoch + ", blocks=" + blockKeys.length + "}";
  }
}
