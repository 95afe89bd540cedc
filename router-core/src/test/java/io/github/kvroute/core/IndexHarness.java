package io.github.kvroute.core;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;

/** Drives a {@link PrefixIndex} the way the router does: slots with generations, masks, matches. */
final class IndexHarness {
  static final CacheNamespace NS = CacheNamespace.of("m");

  final PrefixIndex index;

  IndexHarness(long budgetBytes, long defaultCapacityBlocks) {
    this.index = new PrefixIndex(budgetBytes, defaultCapacityBlocks, 1 << 16);
  }

  /** A prompt of one token per block, so that {@code tokens} spell its block structure. */
  static PromptKey blocks(int... tokens) {
    return PromptKey.ofTokens(tokens, 1, NS);
  }

  /** Allocates {@code n} slots; returns {slot, generation} pairs. */
  int[][] allocate(int n) {
    int[][] out = new int[n][];
    for (int i = 0; i < n; i++) {
      out[i] = index.allocateSlot();
    }
    return out;
  }

  /** Leading blocks of {@code prompt} held by each of {@code slots}, in the same order. */
  int[] match(PromptKey prompt, int... slots) {
    int words = index.words();
    long[] mask = new long[words];
    for (int s : slots) {
      mask[s >>> 6] |= 1L << s;
    }
    int[] bySlot = new int[words << 6];
    java.util.Arrays.fill(bySlot, -1);
    index.match(prompt, mask, words, new long[words], bySlot);
    int[] out = new int[slots.length];
    for (int i = 0; i < slots.length; i++) {
      out[i] = bySlot[slots[i]];
    }
    return out;
  }

  int match(PromptKey prompt, int slot) {
    return match(prompt, new int[] {slot})[0];
  }

  /**
   * A routed insert as the router makes it: a walk of {@code prompt} over {@code candidates} with a
   * trace, then the insert given that trace. The insert, or null if the index dropped it.
   */
  static IndexStore.Insert insertAfterWalk(PrefixIndex index, int slot, int gen, PromptKey prompt,
      int matchedBlocks, int... candidates) {
    int words = index.words();
    long[] mask = new long[words];
    for (int s : candidates) {
      mask[s >>> 6] |= 1L << s;
    }
    WalkTrace trace = new WalkTrace();
    index.match(prompt, mask, words, new long[words], new int[words << 6], trace);
    IndexStore.Insert record = new IndexStore.Insert();
    return index.insertRouted(record, slot, gen, prompt, matchedBlocks, trace) ? record : null;
  }

  /** The first {@code n} block keys of {@code prompt}, or the ones at {@code positions}. */
  static long[] keys(PromptKey prompt, int... positions) {
    long[] k = new long[positions.length];
    for (int i = 0; i < positions.length; i++) {
      k[i] = prompt.blockHash(positions[i]);
    }
    return k;
  }
}
