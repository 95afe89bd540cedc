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
 * caching a block costs one allocation. Adding or dropping a holder probes the map once, through
 * {@link LongMap#position}, for both the read and the write.
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
   * it did not; {@code created[0]} says which. One probe of the map for both.
   */
  CachedBlock getOrAdd(long hash, int replica, boolean[] created) {
    if (hash == 0) {
      return getOrAddZero(replica, created);
    }
    int p = holders.position(hash);
    CachedBlock head = p >= 0 ? holders.valueAt(p) : null;
    for (CachedBlock b = head; b != null; b = b.nextHolder) {
      if (b.replica == replica) {
        created[0] = false;
        return b;
      }
    }
    created[0] = true;
    CachedBlock b = new CachedBlock(hash, replica);
    b.nextHolder = head;
    if (p >= 0) {
      holders.setAt(p, b);
    } else {
      if (holders.reserve()) {
        p = holders.position(hash);
      }
      holders.insertAt(~p, hash, b);
    }
    holderCount++;
    return b;
  }

  private CachedBlock getOrAddZero(int replica, boolean[] created) {
    CachedBlock head = holders.get(0);
    for (CachedBlock b = head; b != null; b = b.nextHolder) {
      if (b.replica == replica) {
        created[0] = false;
        return b;
      }
    }
    created[0] = true;
    CachedBlock b = new CachedBlock(0, replica);
    b.nextHolder = head;
    holders.put(0, b);
    holderCount++;
    return b;
  }

  /** Records that {@code b}'s replica dropped it. One probe of the map. */
  void remove(CachedBlock b) {
    int p = b.hash == 0 ? -1 : holders.position(b.hash);
    CachedBlock head = b.hash == 0 ? holders.get(0) : p >= 0 ? holders.valueAt(p) : null;
    if (head == b) {
      if (b.hash == 0) {
        if (b.nextHolder == null) {
          holders.remove(0);
        } else {
          holders.put(0, b.nextHolder);
        }
      } else if (b.nextHolder == null) {
        holders.removeAt(p);
      } else {
        holders.setAt(p, b.nextHolder);
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

  /**
   * Loads where the lookups of {@code prompt}'s blocks {@code [from, to)} start; returns a value of
   * no meaning for the caller to keep (see {@link LongMap#touch}).
   */
  long touch(io.github.kvroute.api.PromptKey prompt, int from, int to) {
    long sum = 0;
    for (int i = from; i < to; i++) {
      sum += holders.touch(prompt.blockHash(i));
    }
    return sum;
  }

  /** Loads where the lookup of {@code hash} starts (see {@link LongMap#touch}). */
  long touch(long hash) {
    return holders.touch(hash);
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
