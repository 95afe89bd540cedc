package io.github.kvroute.sim;

/**
 * Which replicas of the fleet hold each cached block, the simulator's ground truth.
 *
 * <h2>Design notes</h2>
 * One primitive map from block hash to the first of the {@link CachedBlock}s holding it, the others
 * chained through {@link CachedBlock#nextHolder} (a block is rarely on more than a few replicas). One
 * lookup answers both "does replica r hold block h" (the prefix hit walk) and "does another replica
 * hold it" (the {@code recomputed_tokens} metric). A hash stays in the map only while some replica
 * caches it, so the map is bounded by the fleet's total KV capacity, not by the length of the run, and
 * caching a block costs one allocation.
 *
 * <p>Not thread-safe: one simulation, one thread.
 */
final class BlockRegistry {
  private final LongMap<CachedBlock> holders = new LongMap<>();
  private long holderCount;

  /** Replica {@code replica}'s cached copy of {@code hash}, or null. */
  CachedBlock lookup(long hash, int replica) {
    for (CachedBlock b = holders.get(hash); b != null; b = b.nextHolder) {
      if (b.replica == replica) {
        return b;
      }
    }
    return null;
  }

  /** Whether a replica other than {@code replica} holds {@code hash}. */
  boolean heldElsewhere(long hash, int replica) {
    for (CachedBlock b = holders.get(hash); b != null; b = b.nextHolder) {
      if (b.replica != replica) {
        return true;
      }
    }
    return false;
  }

  /**
   * Replica {@code replica}'s cached copy of {@code hash}, recording that it now caches the block if
   * it did not; {@code created[0]} says which.
   */
  CachedBlock getOrAdd(long hash, int replica, boolean[] created) {
    CachedBlock head = holders.get(hash);
    for (CachedBlock b = head; b != null; b = b.nextHolder) {
      if (b.replica == replica) {
        created[0] = false;
        return b;
      }
    }
    created[0] = true;
    CachedBlock b = new CachedBlock(hash, replica);
    b.nextHolder = head;
    holders.put(hash, b);
    holderCount++;
    return b;
  }

  /** Records that {@code b}'s replica dropped it. */
  void remove(CachedBlock b) {
    CachedBlock head = holders.get(b.hash);
    if (head == b) {
      if (b.nextHolder == null) {
        holders.remove(b.hash);
      } else {
        holders.put(b.hash, b.nextHolder);
      }
    } else {
      CachedBlock prev = head;
      while (prev != null && prev.nextHolder != b) {
        prev = prev.nextHolder;
      }
      if (prev == null) {
        throw new IllegalStateException("block " + b.hash + " not cached on replica " + b.replica);
      }
      prev.nextHolder = b.nextHolder;
    }
    b.nextHolder = null;
    b.succ = null;
    b.dropped = true;
    holderCount--;
  }

  /** Distinct cached blocks in the fleet. */
  int size() {
    return holders.size();
  }

  /** (replica, block) pairs cached in the fleet, as counted while adding and removing. */
  long holderCount() {
    return holderCount;
  }

  /** (replica, block) pairs cached in the fleet, counted by walking every holder list. */
  long walkHolders() {
    long[] n = {0};
    holders.forEachValue(head -> {
      for (CachedBlock b = head; b != null; b = b.nextHolder) {
        n[0]++;
      }
    });
    return n[0];
  }
}
