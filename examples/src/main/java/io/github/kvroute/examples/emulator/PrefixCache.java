package io.github.kvroute.examples.emulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The emulated engine's prefix cache: the hashes of computed prompt blocks, least recently used
 * evicted first, at most {@code capacityBlocks} of them (the engine's {@code num_gpu_blocks}).
 *
 * <h2>Design notes</h2>
 * A lookup counts the leading run of a prompt's block hashes present here and touches them, as vLLM's
 * scheduler does; the last prompt token is always computed, so a fully cached prompt still prefills
 * its last block ({@link #cachedTokens}). A simplification against vLLM, said plainly: blocks of
 * running sequences are not pinned, so the cache and the running batch share one budget only through
 * {@code kv_cache_usage_perc}, which the engine computes from its running sequences.
 *
 * <p>Not thread-safe: owned by its engine, used under the engine's lock.
 */
final class PrefixCache {
  private final int capacityBlocks;
  /** Block hash to nothing, in access order: the eldest entry is the least recently used. */
  private final LinkedHashMap<Long, Boolean> blocks;
  /** Hashes evicted by the last {@link #store}, at most its prompt's block count. */
  private final List<Long> evicted = new ArrayList<>();

  PrefixCache(int capacityBlocks) {
    this.capacityBlocks = capacityBlocks;
    this.blocks = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
        boolean evict = size() > PrefixCache.this.capacityBlocks;
        if (evict) {
          evicted.add(eldest.getKey());
        }
        return evict;
      }
    };
  }

  /** Leading blocks of {@code hashes} cached here, touching each as recently used. */
  int leadingHits(long[] hashes) {
    int hits = 0;
    while (hits < hashes.length && blocks.get(hashes[hits]) != null) {
      hits++;
    }
    return hits;
  }

  /** Prompt tokens served from cache given {@code hits} leading blocks: never the last token. */
  static int cachedTokens(int hits, int promptTokens, int blockSizeTokens) {
    int reusableBlocks = Math.max(0, promptTokens - 1) / blockSizeTokens;
    return Math.min(hits, reusableBlocks) * blockSizeTokens;
  }

  /**
   * Registers a prefilled prompt's blocks, evicting the least recently used beyond capacity.
   *
   * @param removed receives the hashes evicted to make room
   * @return the index of the first block that was not cached before ({@code hashes.length} if all
   *     were): the blocks from there on are newly stored
   */
  int store(long[] hashes, List<Long> removed) {
    evicted.clear();
    int firstNew = hashes.length;
    for (int i = 0; i < hashes.length; i++) {
      if (blocks.put(hashes[i], Boolean.TRUE) == null && firstNew == hashes.length) {
        firstNew = i;
      }
    }
    removed.addAll(evicted);
    evicted.clear();
    return firstNew;
  }

  int size() {
    return blocks.size();
  }

  void clear() {
    blocks.clear();
  }
}
