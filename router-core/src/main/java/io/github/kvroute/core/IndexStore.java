package io.github.kvroute.core;

import io.github.kvroute.api.PromptKey;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntConsumer;

/**
 * The prefix index's single-writer side: per-slot LRU mirrors, capacities, modes and generations, the
 * global budget, and the commands that change them (see {@link PrefixIndex} for the design notes).
 *
 * <p>Not thread-safe: {@link PrefixIndex} applies commands while holding its write lock. Only
 * {@link #slotEntriesNow} is read by other threads, through release-stored counts.
 */
final class IndexStore {
  private final BlockTable table;
  private final long budgetBytes;
  private final long defaultCapacityBlocks;
  private final IntConsumer freeSlot;

  private SlotLru[] lrus = new SlotLru[0];
  private long[] capacityBlocks = new long[0];
  private boolean[] exact = new boolean[0];
  private int[] generation = new int[0];
  private long entries;
  private long tick;
  /** Entries evicted to fit the budget, ever: a run found before a touch is intact if this held. */
  private long budgetEvictions;
  /** Entries per slot, written here with release stores, read lock-free by routing. */
  private volatile AtomicIntegerArray slotCounts = new AtomicIntegerArray(64);

  IndexStore(BlockTable table, long budgetBytes, long defaultCapacityBlocks, IntConsumer freeSlot) {
    this.table = table;
    this.budgetBytes = budgetBytes;
    this.defaultCapacityBlocks = defaultCapacityBlocks;
    this.freeSlot = freeSlot;
  }

  /** The estimate of live memory; {@code stride} is the block table's holder words per block. */
  static long bytesFor(long entries, long blocks, int stride) {
    return entries * PrefixIndex.ENTRY_BYTES + blocks * PrefixIndex.blockBytes(stride);
  }

  long entries() {
    return entries;
  }

  /** A mirror's object with its fields and its six arrays' headers. */
  static final long MIRROR_OBJECT_BYTES = 96 + 6 * 16;

  /**
   * Bytes the store's arrays hold now, from their actual lengths: every slot's mirror, the block
   * table, and the per-slot arrays; each mirror's object and array headers count
   * {@link #MIRROR_OBJECT_BYTES}.
   */
  long footprintBytes() {
    long bytes = table.arrayBytes() + 4L * slotCounts.length()
        + (8L + 8 + 1 + 4) * lrus.length;
    for (SlotLru lru : lrus) {
      if (lru != null) {
        bytes += lru.arrayBytes() + MIRROR_OBJECT_BYTES;
      }
    }
    return bytes;
  }

  int slotEntries(int slot) {
    return slot < lrus.length && lrus[slot] != null ? lrus[slot].size() : 0;
  }

  boolean isExact(int slot) {
    return slot < exact.length && exact[slot];
  }

  /** Entries {@code slot} holds, lock-free. */
  int slotEntriesNow(int slot) {
    AtomicIntegerArray counts = slotCounts;
    return slot < counts.length() ? counts.get(slot) : 0;
  }

  private void countSlot(int slot, int delta) {
    AtomicIntegerArray counts = slotCounts;
    if (slot >= counts.length()) {
      AtomicIntegerArray grown = new AtomicIntegerArray(Math.max(slot + 1, counts.length() * 2));
      for (int i = 0; i < counts.length(); i++) {
        grown.set(i, counts.get(i));
      }
      slotCounts = grown;
      counts = grown;
    }
    counts.lazySet(slot, counts.get(slot) + delta);
  }

  private boolean accept(int slot, int gen) {
    return slot < generation.length && generation[slot] == gen;
  }

  private void ensureSlot(int slot) {
    if (slot >= lrus.length) {
      int n = Math.max(slot + 1, lrus.length * 2);
      lrus = Arrays.copyOf(lrus, n);
      capacityBlocks = Arrays.copyOf(capacityBlocks, n);
      exact = Arrays.copyOf(exact, n);
      int old = generation.length;
      generation = Arrays.copyOf(generation, n);
      Arrays.fill(generation, old, n, -1);
    }
    if (lrus[slot] == null) {
      lrus[slot] = new SlotLru();
      capacityBlocks[slot] = defaultCapacityBlocks;
    }
  }

  private void touch(int slot, long key) {
    SlotLru lru = lrus[slot];
    long t = ++tick;
    if (lru.touchIfPresent(key, t)) {
      return;
    }
    // the stride this slot's holder bit needs (a slot past it widens every block)
    int stride = Math.max(table.stride(), (slot >>> 6) + 1);
    if (bytesFor(entries + 1, table.size() + 1, stride) > budgetBytes) {
      // only near the budget is it worth a lookup to learn whether the block is new
      boolean newBlock = !table.isHeld(key);
      while (bytesFor(entries + 1, table.size() + (newBlock ? 1 : 0), stride) > budgetBytes) {
        if (!evictGlobalOldest()) {
          return;
        }
        newBlock = !table.isHeld(key);
      }
    }
    table.addHolder(key, slot);
    lru.insertAbsent(key, t);
    entries++;
    countSlot(slot, 1);
  }

  private boolean evictGlobalOldest() {
    int victim = -1;
    long oldest = Long.MAX_VALUE;
    for (int s = 0; s < lrus.length; s++) {
      if (lrus[s] != null && lrus[s].tailTick() < oldest) {
        oldest = lrus[s].tailTick();
        victim = s;
      }
    }
    if (victim < 0) {
      return false;
    }
    evictTail(victim);
    budgetEvictions++;
    return true;
  }

  private void evictTail(int slot) {
    dropHolder(slot, lrus[slot].removeTail());
  }

  /** Forgets that {@code slot} holds {@code key}; returns whether it did. */
  private boolean removeEntry(int slot, long key) {
    if (!lrus[slot].remove(key)) {
      return false;
    }
    dropHolder(slot, key);
    return true;
  }

  private void dropHolder(int slot, long key) {
    if (table.removeHolder(key, slot)) {
      entries--;
      countSlot(slot, -1);
    }
  }

  private void enforceCapacity(int slot) {
    SlotLru lru = lrus[slot];
    while (lru.size() > capacityBlocks[slot]) {
      evictTail(slot);
    }
  }

  private void clearSlot(int slot) {
    SlotLru lru = lrus[slot];
    for (long key : lru.keysByRecency()) {
      dropHolder(slot, key);
    }
    lru.clear();
  }

  abstract static class Command {
    final int slot;
    final int gen;

    Command(int slot, int gen) {
      this.slot = slot;
      this.gen = gen;
    }

    abstract void apply(IndexStore ix);

    /** Prompt blocks the command walks: its share of a submitter's bounded drain. */
    int blocks() {
      return 0;
    }

    /** Bytes it holds while buffered: the object and the prompt keys it references. */
    long bufferedBytes() {
      return 64 + 8L * blocks();
    }
  }

  /**
   * An optimistic insert; remembers the ticks it used so that a rollback can tell if it is undisturbed.
   * On an exact slot it is <em>speculative</em>: it stands for the blocks the engine will store once
   * the routed prefill runs, until an event confirms them (touching them again) or the attempt ends.
   */
  static final class Insert extends Command {
    final PromptKey prompt;
    final int matchedBlocks;
    int count;
    long tickStart;
    /** Applied to an exact slot: to be taken back when its attempt ends, unless confirmed. */
    boolean speculative;

    Insert(int slot, int gen, PromptKey prompt, int matchedBlocks) {
      super(slot, gen);
      this.prompt = prompt;
      this.matchedBlocks = matchedBlocks;
    }

    @Override
    int blocks() {
      return prompt.blockCount();
    }

    @Override
    void apply(IndexStore ix) {
      if (!ix.accept(slot, gen)) {
        return;
      }
      speculative = ix.exact[slot];
      count = (int) Math.min(prompt.blockCount(), ix.capacityBlocks[slot]);
      tickStart = ix.tick + 1;
      // A prefix the slot already holds as one run (a re-sent document, a chat's history) moves to the
      // head in one splice instead of one lookup and relink per block; the rest is touched one by one,
      // deepest first, and if that evicted anything the run may be broken, so it is touched one by one
      // too. Both ways leave the same order and ticks.
      SlotLru lru = ix.lrus[slot];
      int run = lru.runLength(prompt, count);
      long evictionsBefore = ix.budgetEvictions;
      for (int i = count - 1; i >= run; i--) {
        ix.touch(slot, prompt.blockHash(i));
      }
      if (run > 0 && ix.budgetEvictions == evictionsBefore) {
        ix.tick += run;
        lru.moveRunToHead(ix.tick);
      } else {
        for (int i = run - 1; i >= 0; i--) {
          ix.touch(slot, prompt.blockHash(i));
        }
      }
      // on an exact slot too: the engine makes room for the routed prefill by evicting its least
      // recently used blocks, and its removal events say so only once that prefill runs
      ix.enforceCapacity(slot);
    }
  }

  /**
   * Takes back the blocks an insert added that nothing touched since; with {@code onlySpeculative},
   * only if the insert was speculative (an attempt ending on an exact slot).
   */
  static final class Rollback extends Command {
    final Insert insert;
    final boolean onlySpeculative;

    Rollback(Insert insert, boolean onlySpeculative) {
      super(insert.slot, insert.gen);
      this.insert = insert;
      this.onlySpeculative = onlySpeculative;
    }

    @Override
    int blocks() {
      return insert.prompt.blockCount();
    }

    @Override
    void apply(IndexStore ix) {
      if (!ix.accept(slot, gen) || insert.count == 0 || (onlySpeculative && !insert.speculative)) {
        return;
      }
      SlotLru lru = ix.lrus[slot];
      for (int i = insert.matchedBlocks; i < insert.count; i++) {
        long key = insert.prompt.blockHash(i);
        if (lru.tickOf(key) == insert.tickStart + (insert.count - 1 - i)) {
          ix.removeEntry(slot, key);
        }
      }
    }
  }

  static final class Stored extends Command {
    final long[] keys;
    /** Whether the slot is (again) in exact mode; false for a degraded replica. */
    final boolean exact;

    Stored(int slot, int gen, long[] keys, boolean exact) {
      super(slot, gen);
      this.keys = keys;
      this.exact = exact;
    }

    @Override
    void apply(IndexStore ix) {
      if (!ix.accept(slot, gen)) {
        return;
      }
      ix.exact[slot] = exact;
      for (int i = keys.length - 1; i >= 0; i--) {
        ix.touch(slot, keys[i]);
      }
    }
  }

  static final class Removed extends Command {
    final long[] keys;
    /** Whether the slot is (again) in exact mode; false for a degraded replica. */
    final boolean exact;

    Removed(int slot, int gen, long[] keys, boolean exact) {
      super(slot, gen);
      this.keys = keys;
      this.exact = exact;
    }

    @Override
    void apply(IndexStore ix) {
      if (!ix.accept(slot, gen)) {
        return;
      }
      ix.exact[slot] = exact;
      for (long key : keys) {
        ix.removeEntry(slot, key);
      }
    }
  }

  static final class Cleared extends Command {
    Cleared(int slot, int gen) {
      super(slot, gen);
    }

    @Override
    void apply(IndexStore ix) {
      if (ix.accept(slot, gen)) {
        ix.exact[slot] = true;
        ix.clearSlot(slot);
      }
    }
  }

  static final class Capacity extends Command {
    final long blocks;

    Capacity(int slot, int gen, long blocks) {
      super(slot, gen);
      this.blocks = blocks;
    }

    @Override
    void apply(IndexStore ix) {
      if (!ix.accept(slot, gen)) {
        return;
      }
      ix.capacityBlocks[slot] = blocks;
      if (!ix.exact[slot]) {
        ix.enforceCapacity(slot);
      }
    }
  }

  static final class Reset extends Command {
    Reset(int slot, int gen) {
      super(slot, gen);
    }

    @Override
    void apply(IndexStore ix) {
      ix.ensureSlot(slot);
      ix.clearSlot(slot);
      ix.generation[slot] = gen;
      ix.exact[slot] = false;
    }
  }

  static final class Release extends Command {
    Release(int slot) {
      super(slot, -1);
    }

    @Override
    void apply(IndexStore ix) {
      ix.ensureSlot(slot);
      ix.clearSlot(slot);
      ix.generation[slot] = -1;
      ix.exact[slot] = false;
      ix.capacityBlocks[slot] = ix.defaultCapacityBlocks;
      ix.freeSlot.accept(slot);
    }
  }
}
