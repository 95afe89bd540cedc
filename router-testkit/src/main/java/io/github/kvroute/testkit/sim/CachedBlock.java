package io.github.kvroute.testkit.sim;

/**
 * One block in one replica's prefix cache: pinned by {@link #refs} running sequences, or unpinned and
 * linked into the replica's LRU list (evictable). Not thread-safe.
 */
final class CachedBlock {
  final BlockRegistry.Entry entry;
  final int replica;
  int refs;
  CachedBlock prev;
  CachedBlock next;

  CachedBlock(BlockRegistry.Entry entry, int replica) {
    this.entry = entry;
    this.replica = replica;
  }

  long hash() {
    return entry.hash;
  }
}
