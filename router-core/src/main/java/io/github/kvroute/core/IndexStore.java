package io.github.kvroute.core;

import io.github.kvroute.api.PromptKey;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntConsumer;

/**
 * The prefix index's single-writer side: what each slot holds (on runs, through {@link Residency}),
 * capacities, modes and generations, the global budget, and the commands that change them (see
 * {@link PrefixIndex} for the design notes).
 *
 * <h2>Design notes</h2>
 * A command resolves its keys to arena positions ({@link KeyGroups}; unknown keys are appended side
 * by side, so a prompt's new blocks form one run), then works on arena-consecutive groups a run at a
 * time, deepest first: exactly what touching or removing its blocks one at a time would do,
 * including the ticks each block gets, which budget eviction picks, and where a capacity or budget
 * cut falls. Budget eviction takes as many blocks at once from the slot with the oldest tail as are
 * older than every other slot's tail, so it is one cut, not one per block.
 *
 * <p>Not thread-safe: guarded by {@link PrefixIndex}'s write lock, under which every command is
 * applied. Only {@link #slotEntriesNow} is read by other threads, through release-stored counts, and
 * {@link #table()}'s published views by routing.
 */
final class IndexStore {
  private final RunTable table;
  private final RunEntries runEntries = new RunEntries();
  private final Residency residency;
  private final KeyGroups groups;
  private final long budgetBytes;
  private final long defaultCapacityBlocks;
  private final IntConsumer freeSlot;

  private boolean[] known = new boolean[0];
  private int[] held = new int[0];
  private long[] capacityBlocks = new long[0];
  private boolean[] exact = new boolean[0];
  private int[] generation = new int[0];
  private long entries;
  private long tick;
  /** Entries per slot, written here with release stores, read lock-free by routing. */
  private volatile AtomicIntegerArray slotCounts = new AtomicIntegerArray(64);

  IndexStore(long budgetBytes, long defaultCapacityBlocks, IntConsumer freeSlot, int minGarbage) {
    this.table = new RunTable(minGarbage);
    this.residency = new Residency(table, runEntries);
    this.groups = new KeyGroups(table);
    this.budgetBytes = budgetBytes;
    this.defaultCapacityBlocks = defaultCapacityBlocks;
    this.freeSlot = freeSlot;
  }

  /** The estimate of live memory; {@code stride} is the holder words per run. */
  static long bytesFor(long entries, long blocks, int stride) {
    return entries * PrefixIndex.ENTRY_BYTES + blocks * PrefixIndex.blockBytes(stride);
  }

  /** The reader-visible arrays. */
  RunTable table() {
    return table;
  }

  long entries() {
    return entries;
  }

  long blocks() {
    return table.liveBlocks();
  }

  int stride() {
    return table.stride();
  }

  /**
   * Bytes the store's arrays hold now, from their actual lengths: the run table, the run entries and
   * the per-slot arrays.
   */
  long footprintBytes() {
    return table.arrayBytes() + runEntries.arrayBytes() + 4L * slotCounts.length()
        + (1L + 4 + 8 + 1 + 4) * known.length;
  }

  int slotEntries(int slot) {
    return slot < held.length ? held[slot] : 0;
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
    held[slot] += delta;
    entries += delta;
    AtomicIntegerArray counts = slotCounts;
    if (slot >= counts.length()) {
      AtomicIntegerArray grown = new AtomicIntegerArray(Math.max(slot + 1, counts.length() * 2));
      for (int i = 0; i < counts.length(); i++) {
        grown.set(i, counts.get(i));
      }
      slotCounts = grown;
      counts = grown;
    }
    counts.lazySet(slot, held[slot]);
  }

  private boolean accept(int slot, int gen) {
    return slot < generation.length && generation[slot] == gen;
  }

  private void ensureSlot(int slot) {
    if (slot >= known.length) {
      int n = Math.max(slot + 1, known.length * 2);
      known = Arrays.copyOf(known, n);
      held = Arrays.copyOf(held, n);
      capacityBlocks = Arrays.copyOf(capacityBlocks, n);
      exact = Arrays.copyOf(exact, n);
      int old = generation.length;
      generation = Arrays.copyOf(generation, n);
      Arrays.fill(generation, old, n, -1);
    }
    if (!known[slot]) {
      known[slot] = true;
      capacityBlocks[slot] = defaultCapacityBlocks;
    }
  }

  // ------------------------------------------------------------------------------------ touches

  /** Touches the first {@code count} keys, the last first, as one block each would be. */
  private void touchAll(int slot, long[] keys, int count) {
    groups.resolve(keys, count, true);
    for (int i = count - 1; i >= 0; ) {
      int j = groups.groupStart(i);
      touchRange(slot, groups.at(j), groups.at(i) + 1);
      i = j - 1;
    }
    residency.maintain();
  }

  /**
   * Touches the arena blocks {@code [low, high)} for {@code slot}, deepest first, one run at a time:
   * a run the slot holds moves to the head of its list; a run it does not hold is added once the
   * budget has room, evicting the globally least recent blocks first, as adding its blocks one by one
   * would. Every block takes a tick whether or not it fits.
   */
  private void touchRange(int slot, int low, int high) {
    for (int cur = high - 1; cur >= low; ) {
      int r = residency.piece(cur, low);
      int from = table.start(r);
      int length = cur + 1 - from;
      long first = tick + length;
      if (table.holds(r, slot)) {
        residency.retouch(r, slot, first);
      } else {
        addWithinBudget(slot, from, cur, first);
      }
      tick = first;
      cur = from - 1;
    }
    residency.mergeWithin(low, high);
  }

  /**
   * Adds {@code slot} to the blocks {@code [from, cur]} (which it does not hold), its first block at
   * tick {@code first}, evicting the globally least recent blocks until the budget has room. An
   * eviction may cut those blocks into several runs, so they are counted again after each.
   */
  private void addWithinBudget(int slot, int from, int cur, long first) {
    int stride = Math.max(table.stride(), (slot >>> 6) + 1);
    long entryBytes = PrefixIndex.ENTRY_BYTES;
    long blockBytes = PrefixIndex.blockBytes(stride);
    int length = cur + 1 - from;
    while (true) {
      long newBlocks = residency.deadBlocks(from, cur + 1);
      long over = bytesFor(entries + length, table.liveBlocks() + newBlocks, stride) - budgetBytes;
      if (over <= 0) {
        countSlot(slot, residency.addRange(slot, from, cur + 1, first));
        return;
      }
      // each evicted entry frees at most an entry and a block: evicting fewer never overshoots
      long need = (over + entryBytes + blockBytes - 1) / (entryBytes + blockBytes);
      if (evictGlobalOldest(need)) {
        continue;
      }
      // the index is empty and still the blocks do not fit: the shallowest of them do
      long fits = (budgetBytes - bytesFor(entries, table.liveBlocks(), stride))
          / (entryBytes + blockBytes);
      if (fits > 0) {
        countSlot(slot, residency.addRange(slot, from, from + (int) fits, first));
      }
      return;
    }
  }

  /**
   * Evicts up to {@code need} of the globally least recent blocks, all from the slot whose tail is
   * oldest and older than every other slot's; whether anything was evicted.
   */
  private boolean evictGlobalOldest(long need) {
    int victim = -1;
    long oldest = Long.MAX_VALUE;
    long second = Long.MAX_VALUE;
    for (int s = 0; s < known.length; s++) {
      if (held[s] == 0) {
        continue;
      }
      long t = residency.tailTick(s);
      if (t < oldest) {
        second = oldest;
        oldest = t;
        victim = s;
      } else if (t < second) {
        second = t;
      }
    }
    if (victim < 0) {
      return false;
    }
    // the tail run's last blocks have ticks oldest, oldest + 1, ...: those below `second` go first
    long n = Math.min(need, second == Long.MAX_VALUE ? Long.MAX_VALUE : second - oldest);
    countSlot(victim, -residency.dropTail(victim, (int) Math.min(n, Integer.MAX_VALUE)));
    return true;
  }

  private void enforceCapacity(int slot) {
    while (held[slot] > capacityBlocks[slot]) {
      countSlot(slot, -residency.dropTail(slot, (int) Math.min(held[slot] - capacityBlocks[slot],
          Integer.MAX_VALUE)));
    }
  }

  /** Forgets the first {@code count} keys for {@code slot}, the ones it holds. */
  private void removeAll(int slot, long[] keys, int count) {
    groups.resolve(keys, count, false);
    for (int i = count - 1; i >= 0; ) {
      if (groups.at(i) < 0) {
        i--;
        continue;
      }
      int j = groups.groupStart(i);
      int low = groups.at(j);
      int high = groups.at(i) + 1;
      for (int cur = high - 1; cur >= low; ) {
        int r = residency.piece(cur, low);
        int from = table.start(r);
        if (table.holds(r, slot)) {
          countSlot(slot, -residency.drop(r, slot));
        }
        cur = from - 1;
      }
      residency.mergeWithin(low, high);
      i = j - 1;
    }
    residency.maintain();
  }

  private void clearSlot(int slot) {
    if (slot < held.length) {
      while (held[slot] > 0) {
        countSlot(slot, -residency.dropHead(slot));
      }
      residency.maintain();
    }
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
      // deepest first, so the root is the most recent and eviction trims leaves first; a prefix the
      // slot already holds moves to the head a run at a time
      ix.touchAll(slot, prompt.blockHashes(), count);
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
      long[] keys = new long[insert.count - Math.min(insert.matchedBlocks, insert.count)];
      int n = 0;
      for (int i = insert.matchedBlocks; i < insert.count; i++) {
        long key = insert.prompt.blockHash(i);
        int b = ix.table.find(key);
        if (b >= 0 && ix.residency.tickOf(slot, b) == insert.tickStart + (insert.count - 1 - i)) {
          keys[n++] = key;
        }
      }
      ix.removeAll(slot, keys, n);
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
      ix.touchAll(slot, keys, keys.length);
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
      ix.removeAll(slot, keys, keys.length);
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
