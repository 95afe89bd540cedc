package io.github.kvroute.examples.emulator;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The emulated engine's paged KV cache with prefix caching, in blocks, as vLLM's block manager keeps
 * it.
 *
 * <h2>Design notes</h2>
 * Every block is free, <em>private</em> to one running sequence (a prompt block being prefilled, the
 * partial last block, generated tokens), or <em>cached</em> under its block hash; a cached block is
 * either pinned by the running sequences using it (a reference count) or evictable, in least recently
 * freed order. {@code free + private + pinned + evictable == total} always.
 *
 * <ul>
 *   <li><b>Admit</b>: the leading run of the prompt's hashes found cached is the hit; the last prompt
 *       token is always computed, so at most {@code (promptTokens - 1) / blockSize} blocks are reused.
 *       They are pinned, and the rest of the sequence's blocks (prompt and output) become private,
 *       evicting the least recently freed evictable blocks when free ones run out. A sequence that
 *       does not fit waits.
 *   <li><b>Prefilled</b>: the prompt's new full blocks are registered under their hashes (private
 *       becomes pinned); a hash another sequence registered meanwhile is shared instead, and the copy
 *       freed.
 *   <li><b>Release</b>: private blocks are freed; pinned ones are unpinned deepest first, so that a
 *       prompt's tail is evicted before its root, as vLLM's free-block queue does.
 * </ul>
 * {@code kv_cache_usage_perc} is {@code (private + pinned) / total}: evictable blocks count as free,
 * as in vLLM.
 *
 * <p>Not thread-safe: owned by its engine, used under the engine's lock.
 */
final class KvBlocks {
  private final int total;
  private final int blockSize;
  /** Cached blocks in use: hash to the number of running sequences using it. */
  private final Map<Long, Integer> pinned = new HashMap<>();
  /** Cached blocks in use by none, least recently freed first. */
  private final LinkedHashMap<Long, Boolean> evictable = new LinkedHashMap<>();
  private int privateBlocks;

  KvBlocks(int total, int blockSize) {
    this.total = total;
    this.blockSize = blockSize;
  }

  /**
   * Admits a sequence of {@code blocks} blocks whose prompt has {@code hashes} and
   * {@code promptTokens} tokens, if it fits.
   *
   * @param evicted receives the hashes evicted to make room
   * @return the prompt blocks reused from the cache, or -1 (nothing changed) if it does not fit
   */
  int admit(long[] hashes, int promptTokens, int blocks, List<Long> evicted) {
    int hits = 0;
    while (hits < hashes.length
        && (pinned.containsKey(hashes[hits]) || evictable.containsKey(hashes[hits]))) {
      hits++;
    }
    int reused = Math.min(hits, Math.max(0, promptTokens - 1) / blockSize);
    int evictableReused = 0;
    for (int i = 0; i < reused; i++) {
      if (evictable.containsKey(hashes[i])) {
        evictableReused++;
      }
    }
    int needed = blocks - reused;
    if (needed > free() + evictable.size() - evictableReused) {
      return -1;
    }
    for (int i = 0; i < reused; i++) {
      pin(hashes[i]);
    }
    for (Iterator<Long> it = evictable.keySet().iterator(); free() < needed; ) {
      evicted.add(it.next());
      it.remove();
    }
    privateBlocks += needed;
    return reused;
  }

  /**
   * Registers a prefilled prompt's full blocks from {@code from} on.
   *
   * @return the index of the first block newly cached ({@code hashes.length} if every one was
   *     already cached by another sequence)
   */
  int register(long[] hashes, int from) {
    int firstNew = hashes.length;
    for (int i = from; i < hashes.length; i++) {
      privateBlocks--;
      if (!pinned.containsKey(hashes[i]) && !evictable.containsKey(hashes[i])
          && firstNew == hashes.length) {
        firstNew = i;
      }
      pin(hashes[i]);
    }
    return firstNew;
  }

  /**
   * Releases a sequence: its {@code privateCount} private blocks are freed and its pinned prompt
   * blocks {@code hashes[0, pinnedCount)} unpinned, deepest first.
   */
  void release(long[] hashes, int pinnedCount, int privateCount) {
    privateBlocks -= privateCount;
    for (int i = pinnedCount - 1; i >= 0; i--) {
      int refs = pinned.merge(hashes[i], -1, Integer::sum);
      if (refs == 0) {
        pinned.remove(hashes[i]);
        evictable.put(hashes[i], Boolean.TRUE);
      }
    }
  }

  /** Blocks neither free nor evictable: {@code vllm:kv_cache_usage_perc} times the total. */
  int usedBlocks() {
    return privateBlocks + pinned.size();
  }

  /** Cached blocks, pinned or evictable. */
  int cachedBlocks() {
    return pinned.size() + evictable.size();
  }

  void clear() {
    pinned.clear();
    evictable.clear();
    privateBlocks = 0;
  }

  private int free() {
    return total - privateBlocks - pinned.size() - evictable.size();
  }

  private void pin(long hash) {
    evictable.remove(hash);
    pinned.merge(hash, 1, Integer::sum);
  }

  /** Hashes of {@code list}, for events. */
  static long[] toArray(List<Long> list) {
    long[] out = new long[list.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = list.get(i);
    }
    return out;
  }
}
