package io.github.kvroute.api;

import java.util.Arrays;
import java.util.OptionalLong;

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
 * <p><b>Sequence numbers.</b> An event may carry a sequence number ({@link #withSequence}): per
 * replica and epoch, increasing by exactly one per event, so that a skipped number means lost events.
 * vLLM numbers each KV event batch on its ZMQ stream and its example subscriber detects lost batches
 * by a gap in those numbers (vLLM, {@code examples/online_serving/kv_events_subscriber.py}); a host
 * unpacking such batches numbers the events it unpacks consecutively and skips a number when the
 * batch numbers skip. Engines that do not number their events leave it absent. With numbers, the router drops duplicates and older numbers, and a gap marks the
 * replica's index <em>degraded</em> until the epoch changes or a {@link Type#CLEARED} event
 * resynchronises it (see {@code Router.onKvEvent}).
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
  private static final long NO_SEQUENCE = -1;

  private final Type type;
  private final String replicaId;
  private final long epoch;
  private final long[] blockKeys;
  /** The publisher's sequence number, or {@link #NO_SEQUENCE}. */
  private final long sequence;

  private KvEvent(Type type, String replicaId, long epoch, long[] blockKeys) {
    this(type, Checks.notBlank(replicaId, "replicaId"), Checks.epoch(epoch), blockKeys, NO_SEQUENCE);
  }

  private KvEvent(Type type, String replicaId, long epoch, long[] blockKeys, long sequence) {
    this.type = type;
    this.replicaId = replicaId;
    this.epoch = epoch;
    this.blockKeys = blockKeys;
    this.sequence = sequence;
  }

  /**
   * This event with the sequence number its publisher gave it, per replica and epoch.
   *
   * @param sequence the publisher's sequence number; {@code >= 0}
   * @return a copy numbered {@code sequence}
   * @throws IllegalArgumentException if {@code sequence} is negative
   */
  public KvEvent withSequence(long sequence) {
    if (sequence < 0) {
      throw new IllegalArgumentException("sequence: " + sequence + " (expected: >= 0)");
    }
    return new KvEvent(type, replicaId, epoch, blockKeys, sequence);
  }

  /** {@return the publisher's sequence number, empty when the engine does not number its events} */
  public OptionalLong sequence() {
    return sequence == NO_SEQUENCE ? OptionalLong.empty()
        : OptionalLong.of(sequence);
  }

  /**
   * Blocks with these kvroute keys became resident on the replica.
   *
   * @param replicaId the replica's id in the router
   * @param epoch the epoch of the replica's process
   * @param blockKeys the blocks' kvroute keys; copied
   * @return a {@link Type#STORED} event
   */
  public static KvEvent stored(String replicaId, long epoch, long... blockKeys) {
    return new KvEvent(Type.STORED, replicaId, epoch, Checks.notNull(blockKeys, "blockKeys").clone());
  }

  /**
   * Blocks with these kvroute keys were evicted from the replica.
   *
   * @param replicaId the replica's id in the router
   * @param epoch the epoch of the replica's process
   * @param blockKeys the blocks' kvroute keys; copied
   * @return a {@link Type#REMOVED} event
   */
  public static KvEvent removed(String replicaId, long epoch, long... blockKeys) {
    return new KvEvent(Type.REMOVED, replicaId, epoch, Checks.notNull(blockKeys, "blockKeys").clone());
  }

  /**
   * The replica dropped its whole cache.
   *
   * @param replicaId the replica's id in the router
   * @param epoch the epoch of the replica's process
   * @return a {@link Type#CLEARED} event, with no blocks
   */
  public static KvEvent cleared(String replicaId, long epoch) {
    return new KvEvent(Type.CLEARED, replicaId, epoch, NONE);
  }

  /**
   * {@link #stored} from engine hashes in {@code namespace}.
   *
   * @param replicaId the replica's id in the router
   * @param epoch the epoch of the replica's process
   * @param namespace the unkeyed namespace the engine's hashes are mapped into
   * @param engineHashes the engine's block hashes; read, not kept
   * @return a {@link Type#STORED} event of the mapped keys
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
   * @param replicaId the replica's id in the router
   * @param epoch the epoch of the replica's process
   * @param namespace the unkeyed namespace the engine's hashes are mapped into
   * @param engineHashes the engine's block hashes; read, not kept
   * @return a {@link Type#REMOVED} event of the mapped keys
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

  /** {@return the kind of change} */
  public Type type() {
    return type;
  }

  /** {@return the replica's id in the router} */
  public String replicaId() {
    return replicaId;
  }

  /** {@return the epoch of the replica's process that published the event} */
  public long epoch() {
    return epoch;
  }

  /** {@return the number of blocks in the event; 0 for {@link Type#CLEARED}} */
  public int blockCount() {
    return blockKeys.length;
  }

  /**
   * The key of block {@code index} of this event.
   *
   * @param index the block's position in the event, in {@code [0, blockCount())}
   * @return the block's kvroute key
   */
  public long blockKey(int index) {
    return blockKeys[index];
  }

  /** {@return a copy of the block keys} */
  public long[] blockKeys() {
    return blockKeys.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KvEvent other && type == other.type && epoch == other.epoch
        && sequence == other.sequence && replicaId.equals(other.replicaId) && Arrays.equals(blockKeys, other.blockKeys);
  }

  @Override
  public int hashCode() {
    return (type.hashCode() * 31 + replicaId.hashCode()) * 31 + Arrays.hashCode(blockKeys);
  }

  @Override
  public String toString() {
    return "KvEvent{" + type + " " + replicaId + "#" + epoch
        + (sequence == NO_SEQUENCE ? "" : " seq " + sequence) + ", blocks=" + blockKeys.length + "}";
  }
}
