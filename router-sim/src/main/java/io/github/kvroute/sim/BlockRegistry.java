package io.github.kvroute.sim;

/**
 * Which replicas of the fleet hold each cached block, the simulator's ground truth, and the blocks
 * that prefills in progress will cache.
 *
 * <h2>Design notes</h2>
 * One primitive map from block hash to one of the {@link CachedBlock}s of that hash, its
 * <em>anchor</em>; all the blocks of a hash form a ring through {@link CachedBlock#nextHolder}
 * (a block is rarely on more than a few replicas), so any one of them reaches the others without the
 * map. One lookup answers both "does replica r hold block h" (the prefix hit walk) and "does another
 * replica hold it" (the {@code recomputed_tokens} metric). A hash stays in the map only while some
 * replica caches or reserves it, so the map is bounded by the fleet's total KV capacity, not by the
 * length of the run, and caching a block costs one allocation.
 *
 * <p><b>Reservations.</b> When a prefill starts, the blocks it will cache are {@linkplain #reserve
 * reserved}: linked into their hash's ring as {@linkplain CachedBlock#pending pending}, which no
 * lookup counts as held, by the same probe that answers whether another replica holds the hash. When
 * the prefill completes, {@link #settle} makes a reserved block cached, or hands back the block of
 * its replica that another prefill cached meanwhile, from its ring alone: no probe of the map. A
 * pending block is a private block of a running sequence, so reservations are bounded by the KV
 * capacity too, and they are dropped when their sequence is released unfinished.
 *
 * <p><b>Removal.</b> Dropping a block unlinks it from its ring; only the last block of a hash (the
 * entry goes) or the anchor (the map names another block) needs the map, through
 * {@link LongMap#position}, one probe for the read and the write. The order of a ring is of no
 * consequence: every question asked of it is about the whole ring.
 *
 * <p>Not thread-safe: one simulation, one thread.
 */
final class BlockRegistry {
  private final LongMap<CachedBlock> anchors = new LongMap<>();
  /** Cached (replica, block) pairs, pending ones not counted. */
  private long holderCount;

  /** Replica {@code replica}'s cached copy of {@code hash}, or null. */
  CachedBlock lookup(long hash, int replica) {
    CachedBlock a = anchors.get(hash);
    return a == null ? null : cachedOn(a, replica, null);
  }

  /** Whether a replica other than {@code replica} holds {@code hash}. */
  boolean heldElsewhere(long hash, int replica) {
    CachedBlock a = anchors.get(hash);
    return a != null && cachedElsewhere(a, replica);
  }

  /** The cached block of {@code replica} in {@code ring}'s ring other than {@code except}, or null. */
  private static CachedBlock cachedOn(CachedBlock ring, int replica, CachedBlock except) {
    CachedBlock b = ring;
    do {
      if (b.replica == replica && !b.pending && b != except) {
        return b;
      }
      b = b.nextHolder;
    } while (b != ring);
    return null;
  }

  private static boolean cachedElsewhere(CachedBlock ring, int replica) {
    CachedBlock b = ring;
    do {
      if (b.replica != replica && !b.pending) {
        return true;
      }
      b = b.nextHolder;
    } while (b != ring);
    return false;
  }

  /**
   * A pending block of {@code hash} on {@code replica}, for a prefill that will cache it;
   * {@code elsewhere[0]} says whether a replica other than {@code replica} holds {@code hash} now.
   * One probe of the map for both.
   */
  CachedBlock reserve(long hash, int replica, boolean[] elsewhere) {
    CachedBlock b = new CachedBlock(hash, replica);
    b.pending = true;
    if (hash == 0) {
      CachedBlock a = anchors.get(0);
      elsewhere[0] = a != null && cachedElsewhere(a, replica);
      link(a, b, -1);
      return b;
    }
    int p = anchors.position(hash);
    CachedBlock a = p >= 0 ? anchors.valueAt(p) : null;
    elsewhere[0] = a != null && cachedElsewhere(a, replica);
    link(a, b, p);
    return b;
  }

  /**
   * The prefill that reserved {@code pending} completed: the block of its replica cached meanwhile
   * by another prefill, if any ({@code created[0]} false; {@code pending} is dropped), else
   * {@code pending} itself, now cached ({@code created[0]} true). No probe of the map unless
   * {@code pending} is dropped while it is its hash's anchor.
   */
  CachedBlock settle(CachedBlock pending, boolean[] created) {
    CachedBlock cached = pending.nextHolder == pending
        ? null : cachedOn(pending, pending.replica, pending);
    if (cached != null) {
      created[0] = false;
      remove(pending);
      return cached;
    }
    created[0] = true;
    pending.pending = false;
    holderCount++;
    return pending;
  }

  /**
   * Replica {@code replica}'s cached copy of {@code hash}, recording that it now caches the block if
   * it did not; {@code created[0]} says which. One probe of the map for both.
   */
  CachedBlock getOrAdd(long hash, int replica, boolean[] created) {
    int p = hash == 0 ? -1 : anchors.position(hash);
    CachedBlock a = hash == 0 ? anchors.get(0) : p >= 0 ? anchors.valueAt(p) : null;
    CachedBlock found = a == null ? null : cachedOn(a, replica, null);
    if (found != null) {
      created[0] = false;
      return found;
    }
    created[0] = true;
    CachedBlock b = new CachedBlock(hash, replica);
    link(a, b, p);
    holderCount++;
    return b;
  }

  /**
   * Links new block {@code b} into the ring of {@code anchor} (null: {@code b} starts the ring and
   * becomes the map's entry, at the position {@code p} a probe of {@code b}'s non-zero hash named).
   */
  private void link(CachedBlock anchor, CachedBlock b, int p) {
    if (anchor != null) {
      b.nextHolder = anchor.nextHolder;
      anchor.nextHolder = b;
      return;
    }
    b.nextHolder = b;
    b.anchor = true;
    if (b.hash == 0) {
      anchors.put(0, b);
      return;
    }
    if (anchors.reserve()) {
      p = anchors.position(b.hash);
    }
    anchors.insertAt(~p, b.hash, b);
  }

  /** Records that {@code b}'s replica dropped it (cached), or that its reservation ended (pending). */
  void remove(CachedBlock b) {
    if (b.dropped) {
      throw new IllegalStateException("block " + b.hash + " on replica " + b.replica
          + " removed twice");
    }
    CachedBlock next = b.nextHolder;
    if (next == b) {
      if (b.hash == 0) {
        anchors.remove(0);
      } else {
        anchors.removeAt(anchors.position(b.hash));
      }
    } else {
      CachedBlock prev = next;
      while (prev.nextHolder != b) {
        prev = prev.nextHolder;
      }
      prev.nextHolder = next;
      if (b.anchor) {
        next.anchor = true;
        if (b.hash == 0) {
          anchors.put(0, next);
        } else {
          anchors.setAt(anchors.position(b.hash), next);
        }
      }
    }
    if (!b.pending) {
      holderCount--;
    }
    b.nextHolder = null;
    b.succ = null;
    b.anchor = false;
    b.dropped = true;
  }

  /**
   * Loads where the lookups of {@code prompt}'s blocks {@code [from, to)} start; returns a value of
   * no meaning for the caller to keep (see {@link LongMap#touch}).
   */
  long touch(io.github.kvroute.api.PromptKey prompt, int from, int to) {
    long sum = 0;
    for (int i = from; i < to; i++) {
      sum += anchors.touch(prompt.blockHash(i));
    }
    return sum;
  }

  /** Loads where the lookup of {@code hash} starts (see {@link LongMap#touch}). */
  long touch(long hash) {
    return anchors.touch(hash);
  }

  /** Distinct hashes cached or reserved in the fleet. */
  int size() {
    return anchors.size();
  }

  /** (replica, block) pairs cached in the fleet, as counted while adding and removing. */
  long holderCount() {
    return holderCount;
  }

  /** (replica, block) pairs cached in the fleet, counted by walking every ring. */
  long walkHolders() {
    long[] n = {0};
    anchors.forEachValue(anchor -> {
      CachedBlock b = anchor;
      do {
        n[0] += b.pending ? 0 : 1;
        b = b.nextHolder;
      } while (b != anchor);
    });
    return n[0];
  }

  /** Blocks reserved in the fleet, counted by walking every ring (for tests). */
  long walkPending() {
    long[] n = {0};
    anchors.forEachValue(anchor -> {
      CachedBlock b = anchor;
      do {
        n[0] += b.pending ? 1 : 0;
        b = b.nextHolder;
      } while (b != anchor);
    });
    return n[0];
  }
}
