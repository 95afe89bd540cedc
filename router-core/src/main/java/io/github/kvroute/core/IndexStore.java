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
 * cut falls. Budget eviction takes at once, from the slot with the oldest tail, its blocks older
 * than every other slot's tail, but no more than the fewest that could cover the accounting's excess
 * (each block frees at most a block, a run and an entry, bar runs that the eviction lets merge): one
 * cut, not one per block, and more than needed only by what such merges free. Every command ends by {@link #settle settling}: eviction until the accounting is
 * within the budget, then compaction of garbage and sparse arrays, which is what keeps the arrays
 * within the accounting between commands.
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
  /** Whether compactions wait for {@link #compactDeferred} (see {@link #maintain}). */
  private boolean deferCompactions;
  /** Whether a command left a compaction that {@link #compactDeferred} has not run yet. */
  private boolean compactionDeferred;
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

  /**
   * The accounting the budget is enforced against, were the holder words per run {@code stride}: per
   * live block, live run and (slot, run) entry the most their arrays can hold between commands,
   * growth slack and uncompacted garbage included, plus the fixed part and the per-slot arrays at
   * their actual lengths (see {@link PrefixIndex}, "Budget").
   */
  private long accounted(int stride) {
    return (long) PrefixIndex.BLOCK_BYTES * table.liveBlocks()
        + (long) PrefixIndex.runBytes(stride) * table.liveRuns()
        + (long) PrefixIndex.ENTRY_BYTES * runEntries.size()
        + PrefixIndex.fixedBytes(stride, table.minGarbage()) + slotArrayBytes();
  }

  /** The accounting now: an upper bound of the bytes the index retains (between commands). */
  long accountedBytes() {
    return accounted(table.stride());
  }

  /**
   * The per-slot arrays and the slot free list from their actual lengths, and the command scratch
   * at the most it keeps between commands (a larger one is a command's transient, as its keys are).
   */
  long slotArrayBytes() {
    return (1L + 4 + 8 + 1 + 4 + PrefixIndex.FREE_SLOT_BYTES) * known.length
        + 4L * slotCounts.length() + runEntries.slotArrayBytes() + 4L * KeyGroups.KEPT;
  }

  /** Most the accounting falls per (slot, block) evicted: its block, its run and its entry. */
  private static long evictionBytes(int stride) {
    return PrefixIndex.BLOCK_BYTES + PrefixIndex.runBytes(stride) + PrefixIndex.ENTRY_BYTES;
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
   * Bytes the store's arrays hold now, from their actual lengths: the run table, the run entries,
   * the per-slot arrays and the command scratch (headers not included).
   */
  long footprintBytes() {
    return table.arrayBytes() + runEntries.arrayBytes() + 4L * slotCounts.length()
        + (1L + 4 + 8 + 1 + 4) * known.length + groups.scratchBytes();
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
    touchAll(slot, keys, count, null, 0);
  }

  /**
   * {@link #touchAll(int, long[], int)}, the first {@code known} keys' positions taken from
   * {@code trace} ({@link KeyGroups#resolve(long[], int, WalkTrace, int)}); only the keys from
   * {@code known} on need be in {@code keys}.
   */
  private void touchAll(int slot, long[] keys, int count, WalkTrace trace, int known) {
    for (int g = groups.resolve(keys, count, trace, known) - 1; g >= 0; g--) {
      touchRange(slot, groups.at(g), groups.at(g) + groups.length(g));
    }
    maintain(false);
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
        // cutting the run out may have cost a run and an entry per other holder
        makeRoom(table.stride());
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
   * tick {@code first}, evicting the globally least recent blocks until the accounting has room for
   * the addition: an entry per run, and per run no slot held yet its record and its blocks. An
   * eviction may cut or merge those blocks' runs, so they are cut and counted again after each.
   */
  private void addWithinBudget(int slot, int from, int cur, long first) {
    int stride = Math.max(table.stride(), (slot >>> 6) + 1);
    int to = cur + 1;
    long step = evictionBytes(stride);
    while (true) {
      // cut first, so that what the cuts cost is in the accounting and the runs lie in the range
      residency.cut(to);
      residency.cut(from);
      long over = accounted(stride) + additionBytes(from, to, stride) - budgetBytes;
      if (over <= 0) {
        countSlot(slot, residency.addRange(slot, from, to, first));
        return;
      }
      // each evicted (slot, block) frees at most a block, a run and an entry (unless the eviction
      // lets runs merge, which frees more): evicting no more than that at once keeps the excess
      // eviction to what such merges free
      if (evictGlobalOldest((over + step - 1) / step)) {
        continue;
      }
      // the index is empty and still the blocks do not fit: the shallowest of them that do
      long room = budgetBytes - accounted(stride);
      long fits = Math.min(to - from, (room - PrefixIndex.ENTRY_BYTES
          - PrefixIndex.runBytes(stride)) / PrefixIndex.BLOCK_BYTES);
      while (fits > 0) {
        residency.cut(from + (int) fits);
        long cost = additionBytes(from, from + (int) fits, stride);
        if (cost <= room) {
          countSlot(slot, residency.addRange(slot, from, from + (int) fits, first));
          return;
        }
        fits -= Math.max(1, (cost - room + PrefixIndex.BLOCK_BYTES - 1) / PrefixIndex.BLOCK_BYTES);
      }
      return;
    }
  }

  /**
   * What adding a slot to the runs in {@code [from, to)} (run boundaries at both ends) adds to the
   * accounting: an entry per run, and a run record and its blocks for each run nobody holds yet.
   */
  private long additionBytes(int from, int to, int stride) {
    long bytes = 0;
    for (int b = from; b < to; ) {
      int r = table.runOf(b);
      int e = Math.min(table.end(r), to);
      bytes += PrefixIndex.ENTRY_BYTES;
      if (!table.anyHolder(r)) {
        bytes += PrefixIndex.runBytes(stride) + (long) PrefixIndex.BLOCK_BYTES * (e - b);
      }
      b = e;
    }
    return bytes;
  }

  /**
   * Evicts the globally least recent blocks until the accounting, at {@code stride} holder words,
   * is within the budget (or nothing is left to evict).
   */
  private void makeRoom(int stride) {
    long step = evictionBytes(stride);
    while (true) {
      long over = accounted(stride) - budgetBytes;
      if (over <= 0 || !evictGlobalOldest((over + step - 1) / step)) {
        return;
      }
    }
  }

  /**
   * Ends a command: brings the accounting back within the budget (cuts and trims cost runs and
   * entries too), then compacts what garbage and sparse arrays call for, so that between commands
   * the arrays are within the accounting.
   */
  private void settle() {
    makeRoom(table.stride());
    groups.trim();
    maintain(true);
  }

  /**
   * Compacts what the run table's garbage calls for, unless compactions are
   * {@linkplain #deferCompactions deferred}: then the compaction is left to
   * {@link #compactDeferred} while the arrays stay within the accounting without it, checked
   * where a command {@code settles} (the bound holds between commands; within one, the garbage
   * may wait for its end). Either way, the entries' arrays shrink if sparse.
   */
  private void maintain(boolean settles) {
    if (table.wantsCompaction()) {
      if (deferCompactions && (!settles || footprintBytes() <= accountedBytes())) {
        compactionDeferred = true;
      } else {
        residency.compact(true);
        compactionDeferred = false;
      }
    }
    residency.shrinkIfSparse();
  }

  /**
   * Leaves the compactions that commands call for to {@link #compactDeferred} while the arrays
   * stay within the accounting without them (the index runs that apart from the writes:
   * {@link PrefixIndex}, "Compactions").
   */
  void deferCompactions() {
    deferCompactions = true;
  }

  /** Whether a command left a compaction to {@link #compactDeferred}. */
  boolean compactionDeferred() {
    return compactionDeferred;
  }

  /**
   * Runs the compaction that commands left (if the garbage still calls for one), rewriting
   * published arrays only if {@code inPlace} ({@link RunTable#compact(boolean)}).
   */
  void compactDeferred(boolean inPlace) {
    if (compactionDeferred && table.wantsCompaction()) {
      residency.compact(inPlace);
    }
    compactionDeferred = false;
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
    for (int g = groups.resolve(keys, count, false) - 1; g >= 0; g--) {
      int low = groups.at(g);
      if (low < 0) {
        continue;
      }
      int high = low + groups.length(g);
      for (int cur = high - 1; cur >= low; ) {
        int r = residency.piece(cur, low);
        int from = table.start(r);
        if (table.holds(r, slot)) {
          countSlot(slot, -residency.drop(r, slot));
        }
        cur = from - 1;
      }
      residency.mergeWithin(low, high);
      // cutting a removed part out of a shared run costs a run and an entry per other holder
      makeRoom(table.stride());
    }
    maintain(false);
  }

  private void clearSlot(int slot) {
    if (slot < held.length) {
      while (held[slot] > 0) {
        countSlot(slot, -residency.dropHead(slot));
      }
      maintain(false);
    }
  }

  /**
   * A change to the store, applied under the index's write lock by whichever thread holds it: its
   * submitter, or a thread that drains the buffer it waited in.
   *
   * <p>Thread-safety: not thread-safe; made by its submitter and handed to the thread that applies
   * it through the buffer's queue or the write lock, each a happens-before edge.
   */
  abstract static class Command {
    /** Applies the command, then settles the store (the budget, garbage and sparse arrays). */
    final void apply(IndexStore ix) {
      run(ix);
      ix.settle();
    }

    abstract void run(IndexStore ix);

    /** Prompt blocks the command walks: its share of a submitter's bounded drain. */
    int blocks() {
      return 0;
    }

    /** Bytes it holds while buffered: the object and the prompt keys it references. */
    long bufferedBytes() {
      return 64 + 8L * blocks();
    }

    /**
     * Called by the submitter just before the command goes to the buffer, where other threads may
     * apply it later.
     */
    void lentToBuffer() {}
  }

  /** A command for one slot's generation, fixed when made. Immutable. */
  abstract static class SlotCommand extends Command {
    final int slot;
    final int gen;

    SlotCommand(int slot, int gen) {
      this.slot = slot;
      this.gen = gen;
    }
  }

  /**
   * An optimistic insert; remembers the ticks it used so that a rollback can tell if it is undisturbed.
   * On an exact slot it is <em>speculative</em>: it stands for the blocks the engine will store once
   * the routed prefill runs, until an event confirms them (touching them again) or the attempt ends.
   *
   * <p><b>Design notes: reuse.</b> Every routed decision makes one, kept until its attempt ends
   * (48 bytes a decision), so a record can be reused for a later attempt ({@link #set}): the
   * attempt's lease keeps its record when the lease is recycled. Reuse is safe while no other
   * thread can hold the record: one applied at once by its submitter (the common case: the buffer
   * empty, the lock free) is done with when {@code submit} returns, and so is its rollback. One
   * that went to the buffer ({@link #lentToBuffer}), or whose rollback did, may be applied later
   * by any thread that drains the buffer, so it is never reused ({@link #reusable}); its attempt
   * gets a new record.
   *
   * <p>Thread-safety: not thread-safe. {@link #set} is called by the routing thread before the
   * record is submitted; the insert's results are written and read under the index's write lock;
   * the submission publishes the rest (the buffer's queue, or the lock).
   */
  static final class Insert extends Command {
    int slot;
    int gen;
    PromptKey prompt;
    int matchedBlocks;
    int count;
    long tickStart;
    /** Applied to an exact slot: to be taken back when its attempt ends, unless confirmed. */
    boolean speculative;
    /** It or one of its rollbacks went to the buffer: never reused (see the notes). */
    private boolean lent;
    /** The rollback command last made for it, reused while none went to the buffer. */
    private Rollback rollback;
    /**
     * The submitting thread's walk of the prompt, or null: read only if this insert is applied
     * before {@link #set} returns to that thread's next decision, so never once lent.
     */
    private WalkTrace trace;

    Insert() {}

    /**
     * Makes this record the insert of {@code prompt}'s first blocks into {@code slot}, as a new one.
     *
     * @throws IllegalStateException if it is not {@link #reusable}
     */
    void set(int slot, int gen, PromptKey prompt, int matchedBlocks) {
      set(slot, gen, prompt, matchedBlocks, null);
    }

    /**
     * {@link #set(int, int, PromptKey, int)}, with the submitting thread's walk of {@code prompt}
     * (or null), which the insert uses if it is applied at once ({@link WalkTrace}).
     */
    void set(int slot, int gen, PromptKey prompt, int matchedBlocks, WalkTrace trace) {
      if (lent) {
        throw new IllegalStateException(
            "insert: lent to the buffer (expected: a record no buffered command holds)");
      }
      this.slot = slot;
      this.gen = gen;
      this.prompt = prompt;
      this.matchedBlocks = matchedBlocks;
      this.count = 0;
      this.tickStart = 0;
      this.speculative = false;
      this.trace = trace;
    }

    /** Whether {@link #set} may reuse it: neither it nor a rollback of it went to the buffer. */
    boolean reusable() {
      return !lent;
    }

    /** Lets go of the prompt it references, so that a record kept for reuse holds no request's keys. */
    void clear() {
      prompt = null;
      trace = null;
    }

    @Override
    void lentToBuffer() {
      lent = true;
      // applied later, maybe by another thread: the submitter's scratch will have moved on
      trace = null;
    }

    /** Its rollback command, {@code onlySpeculative} or not: the last one, unless that was lent. */
    Rollback rollback(boolean onlySpeculative) {
      Rollback r = rollback;
      if (r == null || lent) {
        r = new Rollback(this);
        rollback = r;
      }
      r.onlySpeculative = onlySpeculative;
      return r;
    }

    @Override
    int blocks() {
      return prompt.blockCount();
    }

    /**
     * Whether every block it touches was believed held before ({@code matchedBlocks} covers the
     * prompt): a {@link Rollback} takes back only blocks past {@code matchedBlocks}, so it would do
     * nothing, whether or not this insert was applied yet. Reads what {@link #set} wrote: the
     * routing thread, or one the submission published it to.
     */
    boolean addsNothing() {
      return matchedBlocks >= prompt.blockCount();
    }

    @Override
    void run(IndexStore ix) {
      if (!ix.accept(slot, gen)) {
        return;
      }
      speculative = ix.exact[slot];
      count = (int) Math.min(prompt.blockCount(), ix.capacityBlocks[slot]);
      tickStart = ix.tick + 1;
      // deepest first, so the root is the most recent and eviction trims leaves first; a prefix the
      // slot already holds moves to the head a run at a time
      WalkTrace walked = trace;
      trace = null;
      // the leading blocks the routing thread's walk found, if no compaction came since
      int known = walked == null ? 0 : walked.usable(prompt, ix.table.compactions(), count);
      long[] keys = ix.groups.keyScratch(count);
      for (int i = known; i < count; i++) {
        keys[i] = prompt.blockHash(i); // not blockHashes(), a copy per routed prompt
      }
      ix.touchAll(slot, keys, count, walked, known);
      // on an exact slot too: the engine makes room for the routed prefill by evicting its least
      // recently used blocks, and its removal events say so only once that prefill runs
      ix.enforceCapacity(slot);
    }
  }

  /**
   * Takes back the blocks an insert added that nothing touched since; with {@code onlySpeculative},
   * only if the insert was speculative (an attempt ending on an exact slot). Made and reused by
   * its {@link Insert} ({@link Insert#rollback}); not thread-safe, as the insert.
   */
  static final class Rollback extends Command {
    final Insert insert;
    boolean onlySpeculative;

    Rollback(Insert insert) {
      this.insert = insert;
    }

    @Override
    int blocks() {
      return insert.prompt.blockCount();
    }

    @Override
    void lentToBuffer() {
      insert.lent = true;
    }

    @Override
    void run(IndexStore ix) {
      Insert i0 = insert;
      int slot = i0.slot;
      if (!ix.accept(slot, i0.gen) || i0.count == 0 || (onlySpeculative && !i0.speculative)) {
        return;
      }
      int most = i0.count - Math.min(i0.matchedBlocks, i0.count);
      long[] keys = ix.groups.keyScratch(most);
      int n = 0;
      for (int i = i0.matchedBlocks; i < i0.count; i++) {
        long key = i0.prompt.blockHash(i);
        int b = ix.table.find(key);
        if (b >= 0 && ix.residency.tickOf(slot, b) == i0.tickStart + (i0.count - 1 - i)) {
          keys[n++] = key;
        }
      }
      ix.removeAll(slot, keys, n);
    }
  }

  static final class Stored extends SlotCommand {
    final long[] keys;
    /** Whether the slot is (again) in exact mode; false for a degraded replica. */
    final boolean exact;

    Stored(int slot, int gen, long[] keys, boolean exact) {
      super(slot, gen);
      this.keys = keys;
      this.exact = exact;
    }

    @Override
    void run(IndexStore ix) {
      if (!ix.accept(slot, gen)) {
        return;
      }
      ix.exact[slot] = exact;
      ix.touchAll(slot, keys, keys.length);
    }
  }

  static final class Removed extends SlotCommand {
    final long[] keys;
    /** Whether the slot is (again) in exact mode; false for a degraded replica. */
    final boolean exact;

    Removed(int slot, int gen, long[] keys, boolean exact) {
      super(slot, gen);
      this.keys = keys;
      this.exact = exact;
    }

    @Override
    void run(IndexStore ix) {
      if (!ix.accept(slot, gen)) {
        return;
      }
      ix.exact[slot] = exact;
      ix.removeAll(slot, keys, keys.length);
    }
  }

  static final class Cleared extends SlotCommand {
    Cleared(int slot, int gen) {
      super(slot, gen);
    }

    @Override
    void run(IndexStore ix) {
      if (ix.accept(slot, gen)) {
        ix.exact[slot] = true;
        ix.clearSlot(slot);
      }
    }
  }

  static final class Capacity extends SlotCommand {
    final long blocks;

    Capacity(int slot, int gen, long blocks) {
      super(slot, gen);
      this.blocks = blocks;
    }

    @Override
    void run(IndexStore ix) {
      if (!ix.accept(slot, gen)) {
        return;
      }
      ix.capacityBlocks[slot] = blocks;
      if (!ix.exact[slot]) {
        ix.enforceCapacity(slot);
      }
    }
  }

  static final class Reset extends SlotCommand {
    Reset(int slot, int gen) {
      super(slot, gen);
    }

    @Override
    void run(IndexStore ix) {
      ix.ensureSlot(slot);
      ix.clearSlot(slot);
      ix.generation[slot] = gen;
      ix.exact[slot] = false;
    }
  }

  static final class Release extends SlotCommand {
    Release(int slot) {
      super(slot, -1);
    }

    @Override
    void run(IndexStore ix) {
      ix.ensureSlot(slot);
      ix.clearSlot(slot);
      ix.generation[slot] = -1;
      ix.exact[slot] = false;
      ix.capacityBlocks[slot] = ix.defaultCapacityBlocks;
      ix.freeSlot.accept(slot);
    }
  }
}
