package io.github.kvroute.testkit.sim;

/**
 * Which replicas of the fleet hold each cached block, the simulator's ground truth.
 *
 * <h2>Design notes</h2>
 * One map from block hash to an {@link Entry} holding, per replica, that replica's
 * {@link CachedBlock} (or null) and the number of replicas holding it. One lookup answers both "does
 * replica r hold block h" (the prefix hit walk) and "does any other replica hold it" (the
 * {@code recomputed_tokens} metric). An entry lives only while some replica caches the block, so the map
 * is bounded by the fleet's total KV capacity, not by the length of the run.
 *
 * <p>Not thread-safe: one simulation, one thread.
 */
final class BlockRegistry {
  /** One block hash and its holders. */
  static final class Entry {
    final long hash;
    final CachedBlock[] at;
    int holders;

    Entry(long hash, int replicas) {
      this.hash = hash;
      this.at = new CachedBlock[replicas];
    }
  }

  private final LongMap<Entry> entries = new LongMap<>();
  private final int replicas;

  BlockRegistry(int replicas) {
    this.replicas = replicas;
  }

  Entry get(long hash) {
    return entries.get(hash);
  }

  /** Replica {@code replica}'s cached copy of {@code hash}, or null. */
  CachedBlock lookup(long hash, int replica) {
    Entry e = entries.get(hash);
    return e == null ? null : e.at[replica];
  }

  /** Whether a replica other than {@code replica} holds {@code hash}. */
  boolean heldElsewhere(long hash, int replica) {
    Entry e = entries.get(hash);
    return e != null && e.holders > (e.at[replica] != null ? 1 : 0);
  }

  /**
   * Replica {@code replica}'s cached copy of {@code hash}, recording that it now caches the block if
   * it did not; {@code created[0]} says which.
   */
  CachedBlock getOrAdd(long hash, int replica, boolean[] created) {
    Entry e = entries.get(hash);
    if (e == null) {
      e = new Entry(hash, replicas);
      entries.put(hash, e);
    } else if (e.at[replica] != null) {
      created[0] = false;
      return e.at[replica];
    }
    created[0] = true;
    CachedBlock b = new CachedBlock(e, replica);
    e.at[replica] = b;
    e.holders++;
    return b;
  }

  /** Records that {@code b}'s replica dropped it. */
  void remove(CachedBlock b) {
    Entry e = b.entry;
    if (e.at[b.replica] != b) {
      throw new IllegalStateException("block " + e.hash + " not cached on replica " + b.replica);
    }
    e.at[b.replica] = null;
    if (--e.holders == 0) {
      entries.remove(e.hash);
    }
  }

  /** Distinct cached blocks in the fleet. */
  int size() {
    return entries.size();
  }

  /** Sum of holders over all entries (equals the replicas' cached block counts summed). */
  long holderCount() {
    long[] n = {0};
    entries.forEachValue(e -> n[0] += e.holders);
    return n[0];
  }
}
