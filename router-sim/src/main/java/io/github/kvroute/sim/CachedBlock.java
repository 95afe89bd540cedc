package io.github.kvroute.sim;

/**
 * One block in one replica's prefix cache: pinned by {@link #refs} running sequences, or unpinned and
 * linked into the replica's LRU list (evictable). Also a link in the {@link BlockRegistry}'s list of
 * the replicas holding the same hash. Not thread-safe.
 */
final class CachedBlock {
  final long hash;
  final int replica;
  int refs;
  CachedBlock prev;
  CachedBlock next;
  CachedBlock nextHolder;

  CachedBlock(long hash, int replica) {
    this.hash = hash;
    this.replica = replica;
  }

  long hash() {
    return hash;
  }
}
