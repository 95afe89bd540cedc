package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;

import io.github.kvroute.api.PromptKey;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Which replica holds which prompt blocks: per replica slot, the leading prefix of a prompt it is
 * believed to hold.
 *
 * <h2>Design notes</h2>
 * <b>Reads.</b> {@link #match} walks the prompt's chained keys once through the {@link BlockTable},
 * intersecting each block's holder bits with the still-matching candidates; a candidate's match length is
 * the first block it does not hold. The cost is O(matched blocks x candidate words) and takes no lock.
 *
 * <p><b>Writes.</b> Every change (an optimistic insert after routing, a KV event, a capacity change, a
 * replica reset) is a command appended to a lock-free buffer and applied by whichever thread wins a
 * {@code tryLock} — Caffeine's write-buffer pattern. Readers never wait for writers and {@code route}
 * never blocks: when the buffer is over its limit, optimistic inserts (hints) are dropped and counted,
 * while KV events (facts) make their producer drain under the lock. A single-threaded caller (the
 * simulator) sees every command applied before its call returns, so runs are deterministic.
 *
 * <p><b>Modes.</b> A slot starts <em>approximate</em>: the router inserts what it routed and mirrors the
 * replica's KV capacity with an LRU (blocks touched deepest-first, so the root is the most recent and
 * eviction trims leaves first, as vLLM's free-block queue does). The first KV event for a slot switches
 * it to <em>exact</em>: stored/removed/cleared events are then the only writers for it.
 *
 * <p><b>Budget.</b> Live memory is estimated as {@code entries x ENTRY_BYTES + blocks x BLOCK_BYTES}
 * (per (slot, block) entry: key, tick and links in {@link SlotLru} plus its index; per block: the
 * {@link BlockTable.Block}, its holder words and its table slot). Before an entry is added, the globally
 * least recent entry (the oldest tail over all slots) is evicted until the addition fits, so the estimate
 * never exceeds the budget.
 *
 * <p><b>Epochs.</b> Commands carry the slot's generation; a replica restart or removal draws a new one,
 * and commands from the old generation are dropped, so a late insert cannot resurrect a dead cache.
 *
 * <p>Thread-safety: thread-safe. {@link #match} is lock-free; all writes go through the buffer.
 */
final class PrefixIndex {
  static final int ENTRY_BYTES = 40;
  static final int BLOCK_BYTES = 72;
  static final long MIN_BUDGET_BYTES = 64 * 1024;

  private final long budgetBytes;
  private final long defaultCapacityBlocks;
  private final int bufferLimit;

  private final BlockTable table = new BlockTable();
  private final ReentrantLock writeLock = new ReentrantLock();
  private final ConcurrentLinkedQueue<Command> buffer = new ConcurrentLinkedQueue<>();
  private final AtomicInteger buffered = new AtomicInteger();
  private final LongAdder droppedHints = new LongAdder();
  private final AtomicInteger generations = new AtomicInteger();

  // slot allocation
  private final Object slotLock = new Object();
  private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();
  private int slotHighWater;
  private volatile int words = 1;

  // writer state, guarded by writeLock
  private SlotLru[] lrus = new SlotLru[0];
  private long[] capacityBlocks = new long[0];
  private boolean[] exact = new boolean[0];
  private int[] generation = new int[0];
  private long entries;
  private long tick;

  private volatile long publishedEntries;
  private volatile long publishedBlocks;
  /** Entries per slot, written by the writer with release stores, read lock-free by routing. */
  private volatile AtomicIntegerArray slotCounts = new AtomicIntegerArray(64);

  PrefixIndex(long budgetBytes, long defaultCapacityBlocks, int bufferLimit) {
    checkArgument(budgetBytes >= MIN_BUDGET_BYTES, "indexBudgetBytes: %s (expected: >= %s)",
        budgetBytes, MIN_BUDGET_BYTES);
    checkArgument(defaultCapacityBlocks >= 1, "defaultCapacityBlocks: %s (expected: >= 1)",
        defaultCapacityBlocks);
    checkArgument(bufferLimit >= 1, "bufferLimit: %s (expected: >= 1)", bufferLimit);
    this.budgetBytes = budgetBytes;
    this.defaultCapacityBlocks = defaultCapacityBlocks;
    this.bufferLimit = bufferLimit;
  }

  // ---------------------------------------------------------------------------------------- slots

  /** A slot for a new replica and the generation its commands must carry. */
  int[] allocateSlot() {
    int slot;
    synchronized (slotLock) {
      Integer reused = freeSlots.pollFirst();
      slot = reused != null ? reused : slotHighWater++;
      words = Math.max(words, (slot >>> 6) + 1);
    }
    int gen = reset(slot);
    return new int[] {slot, gen};
  }

  /** Empties {@code slot} (cold cache) under a new generation, which is returned. */
  int reset(int slot) {
    int gen = generations.incrementAndGet();
    submit(new Reset(slot, gen), true);
    return gen;
  }

  /** Forgets {@code slot}; it may be reused by another replica once the release is applied. */
  void release(int slot) {
    submit(new Release(slot), true);
  }

  /** Words in a candidate mask: enough for every allocated slot. */
  int words() {
    return words;
  }

  // ---------------------------------------------------------------------------------------- reads

  /**
   * For every slot set in {@code candidates}, writes to {@code matchedOut[slot]} the number of leading
   * blocks of {@code prompt} that slot holds. {@code alive} is scratch of at least the mask's length.
   */
  void match(PromptKey prompt, long[] candidates, int maskWords, long[] alive, int[] matchedOut) {
    System.arraycopy(candidates, 0, alive, 0, maskWords);
    int n = prompt.blockCount();
    int i = 0;
    boolean any = false;
    for (int w = 0; w < maskWords; w++) {
      any |= alive[w] != 0;
    }
    while (any && i < n) {
      BlockTable.Block b = table.get(prompt.blockHash(i));
      if (b == null) {
        break;
      }
      long[] h = b.holders;
      any = false;
      for (int w = 0; w < maskWords; w++) {
        long a = alive[w];
        if (a == 0) {
          continue;
        }
        long held = a & b.word(h, w);
        long dropped = a & ~held;
        while (dropped != 0) {
          matchedOut[(w << 6) + Long.numberOfTrailingZeros(dropped)] = i;
          dropped &= dropped - 1;
        }
        alive[w] = held;
        any |= held != 0;
      }
      if (any) {
        i++;
      }
    }
    for (int w = 0; w < maskWords; w++) {
      long a = alive[w];
      while (a != 0) {
        matchedOut[(w << 6) + Long.numberOfTrailingZeros(a)] = i;
        a &= a - 1;
      }
    }
  }

  // --------------------------------------------------------------------------------------- writes

  /**
   * Believes {@code slot} now holds the first {@code blocks} blocks of {@code prompt} (it was routed
   * there). {@code matchedBlocks} is what the slot was believed to hold before, kept for rollback. A
   * hint: dropped (and counted) when the write buffer is over its limit.
   */
  Insert insertRouted(int slot, int gen, PromptKey prompt, int matchedBlocks) {
    Insert c = new Insert(slot, gen, prompt, matchedBlocks);
    return submit(c, false) ? c : null;
  }

  /** Undoes an insert whose request never reached prefill, where nothing touched the blocks since. */
  void rollback(Insert insert) {
    submit(new Rollback(insert), false);
  }

  void kvStored(int slot, int gen, long[] keys) {
    submit(new Stored(slot, gen, keys), true);
  }

  void kvRemoved(int slot, int gen, long[] keys) {
    submit(new Removed(slot, gen, keys), true);
  }

  void kvCleared(int slot, int gen) {
    submit(new Cleared(slot, gen), true);
  }

  /** Mirrors the replica's reported KV capacity, in index blocks. */
  void setCapacity(int slot, int gen, long blocks) {
    submit(new Capacity(slot, gen, Math.max(1, blocks)), true);
  }

  /** Applies everything buffered, waiting for the lock (tests, shutdown). */
  void flush() {
    writeLock.lock();
    try {
      drainLocked();
    } finally {
      writeLock.unlock();
    }
  }

  private boolean submit(Command c, boolean fact) {
    if (!fact && buffered.get() >= bufferLimit) {
      droppedHints.increment();
      return false;
    }
    buffer.add(c);
    if (buffered.incrementAndGet() > bufferLimit && fact) {
      flush();
    }
    while (!buffer.isEmpty() && writeLock.tryLock()) {
      try {
        drainLocked();
      } finally {
        writeLock.unlock();
      }
    }
    return true;
  }

  private void drainLocked() {
    Command c;
    while ((c = buffer.poll()) != null) {
      buffered.decrementAndGet();
      c.apply(this);
    }
    publishedEntries = entries;
    publishedBlocks = table.size();
  }

  // ------------------------------------------------------------------------------- observability

  /** Entries {@code slot} holds, lock-free (as of the last applied write). */
  int slotEntriesNow(int slot) {
    AtomicIntegerArray counts = slotCounts;
    return slot < counts.length() ? counts.get(slot) : 0;
  }

  /** Writer: adjusts a slot's published count. */
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

  long entryCount() {
    return publishedEntries;
  }

  long blockCount() {
    return publishedBlocks;
  }

  long estimatedBytes() {
    return bytesFor(publishedEntries, publishedBlocks);
  }

  long budgetBytes() {
    return budgetBytes;
  }

  long droppedHints() {
    return droppedHints.sum();
  }

  /** Entries held by {@code slot} (after applying buffered commands). */
  int slotEntries(int slot) {
    writeLock.lock();
    try {
      drainLocked();
      return slot < lrus.length && lrus[slot] != null ? lrus[slot].size() : 0;
    } finally {
      writeLock.unlock();
    }
  }

  /** Whether {@code slot} is in exact (KV-event) mode. */
  boolean isExact(int slot) {
    writeLock.lock();
    try {
      drainLocked();
      return slot < exact.length && exact[slot];
    } finally {
      writeLock.unlock();
    }
  }

  private static long bytesFor(long entries, long blocks) {
    return entries * ENTRY_BYTES + blocks * BLOCK_BYTES;
  }

  // -------------------------------------------------------------------------- writer internals

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
    boolean newBlock = table.get(key) == null;
    while (bytesFor(entries + 1, table.size() + (newBlock ? 1 : 0)) > budgetBytes) {
      if (!evictGlobalOldest()) {
        return;
      }
      newBlock = table.get(key) == null;
    }
    table.addHolder(table.getOrCreate(key, words), slot);
    lru.touch(key, t);
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
    return true;
  }

  private void evictTail(int slot) {
    SlotLru lru = lrus[slot];
    long key = lru.tailKey();
    lru.remove(key);
    dropHolder(slot, key);
  }

  private void dropHolder(int slot, long key) {
    BlockTable.Block b = table.get(key);
    if (b != null && table.removeHolder(b, slot)) {
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

  private abstract static class Command {
    final int slot;
    final int gen;

    Command(int slot, int gen) {
      this.slot = slot;
      this.gen = gen;
    }

    abstract void apply(PrefixIndex ix);
  }

  /** An optimistic insert; remembers the ticks it used so that a rollback can tell if it is undisturbed. */
  static final class Insert extends Command {
    final PromptKey prompt;
    final int matchedBlocks;
    int count;
    long tickStart;

    Insert(int slot, int gen, PromptKey prompt, int matchedBlocks) {
      super(slot, gen);
      this.prompt = prompt;
      this.matchedBlocks = matchedBlocks;
    }

    @Override
    void apply(PrefixIndex ix) {
      if (!ix.accept(slot, gen) || ix.exact[slot]) {
        return;
      }
      count = (int) Math.min(prompt.blockCount(), ix.capacityBlocks[slot]);
      tickStart = ix.tick + 1;
      for (int i = count - 1; i >= 0; i--) {
        ix.touch(slot, prompt.blockHash(i));
      }
      ix.enforceCapacity(slot);
    }
  }

  private static final class Rollback extends Command {
    final Insert insert;

    Rollback(Insert insert) {
      super(insert.slot, insert.gen);
      this.insert = insert;
    }

    @Override
    void apply(PrefixIndex ix) {
      if (!ix.accept(slot, gen) || insert.count == 0) {
        return;
      }
      SlotLru lru = ix.lrus[slot];
      for (int i = insert.matchedBlocks; i < insert.count; i++) {
        long key = insert.prompt.blockHash(i);
        if (lru.tickOf(key) == insert.tickStart + (insert.count - 1 - i)) {
          lru.remove(key);
          ix.dropHolder(slot, key);
        }
      }
    }
  }

  private static final class Stored extends Command {
    final long[] keys;

    Stored(int slot, int gen, long[] keys) {
      super(slot, gen);
      this.keys = keys;
    }

    @Override
    void apply(PrefixIndex ix) {
      if (!ix.accept(slot, gen)) {
        return;
      }
      ix.exact[slot] = true;
      for (int i = keys.length - 1; i >= 0; i--) {
        ix.touch(slot, keys[i]);
      }
    }
  }

  private static final class Removed extends Command {
    final long[] keys;

    Removed(int slot, int gen, long[] keys) {
      super(slot, gen);
      this.keys = keys;
    }

    @Override
    void apply(PrefixIndex ix) {
      if (!ix.accept(slot, gen)) {
        return;
      }
      ix.exact[slot] = true;
      for (long key : keys) {
        if (ix.lrus[slot].remove(key)) {
          ix.dropHolder(slot, key);
        }
      }
    }
  }

  private static final class Cleared extends Command {
    Cleared(int slot, int gen) {
      super(slot, gen);
    }

    @Override
    void apply(PrefixIndex ix) {
      if (ix.accept(slot, gen)) {
        ix.exact[slot] = true;
        ix.clearSlot(slot);
      }
    }
  }

  private static final class Capacity extends Command {
    final long blocks;

    Capacity(int slot, int gen, long blocks) {
      super(slot, gen);
      this.blocks = blocks;
    }

    @Override
    void apply(PrefixIndex ix) {
      if (!ix.accept(slot, gen)) {
        return;
      }
      ix.capacityBlocks[slot] = blocks;
      if (!ix.exact[slot]) {
        ix.enforceCapacity(slot);
      }
    }
  }

  private static final class Reset extends Command {
    Reset(int slot, int gen) {
      super(slot, gen);
    }

    @Override
    void apply(PrefixIndex ix) {
      ix.ensureSlot(slot);
      ix.clearSlot(slot);
      ix.generation[slot] = gen;
      ix.exact[slot] = false;
    }
  }

  private static final class Release extends Command {
    Release(int slot) {
      super(slot, -1);
    }

    @Override
    void apply(PrefixIndex ix) {
      ix.ensureSlot(slot);
      ix.clearSlot(slot);
      ix.generation[slot] = -1;
      ix.exact[slot] = false;
      ix.capacityBlocks[slot] = ix.defaultCapacityBlocks;
      synchronized (ix.slotLock) {
        ix.freeSlots.addLast(slot);
      }
    }
  }
}
