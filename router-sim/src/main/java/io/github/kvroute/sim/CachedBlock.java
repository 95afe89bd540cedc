package io.github.kvroute.sim;

/**
 * One block in one replica's prefix cache: pinned by {@link #refs} running sequences, or unpinned and
 * linked into the replica's LRU list (evictable); or {@link #pending}, reserved by a prefill in
 * progress that will cache it. Also a link in the {@link BlockRegistry}'s ring of the blocks of the
 * same hash, and a memo of the block that last followed it in a prompt on the same replica
 * ({@link #succ}), which lets {@link KvCache}'s prefix walks skip the registry's hash probe.
 * Not thread-safe.
 */
final class CachedBlock {
  final long hash;
  final int replica;
  int refs;
  CachedBlock prev;
  CachedBlock next;
  CachedBlock nextHolder;
  /**
   * A block of the same replica that followed this one in a prompt walked or registered here, or null:
   * a hint only, valid while it is not {@link #dropped} and its hash is the one sought. Cleared when
   * this block is dropped, so a dropped block keeps nothing else alive.
   */
  CachedBlock succ;
  /** Removed from its replica's cache; a dropped block is never cached again (a new one is made). */
  boolean dropped;
  /**
   * Reserved by a prefill in progress, not cached yet: in its hash's ring, but no lookup counts it
   * as held, and no walk memoizes it.
   */
  boolean pending;
  /** The block the registry's map names for its hash (one per ring). */
  boolean anchor;

  CachedBlock(long hash, int replica) {
    this.hash = hash;
    this.replica = replica;
  }

  long hash() {
    return hash;
  }
}
