package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;

import io.github.kvroute.api.PromptKey;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Which replica holds which prompt blocks: per replica slot, the leading prefix of a prompt it is
 * believed to hold.
 *
 * <h2>Design notes</h2>
 * <b>Structure.</b> Blocks live in a {@link RunTable}: an arena where a prompt's new blocks are
 * appended side by side, grouped into <em>runs</em> (arena ranges whose blocks have the same holder
 * slots, path-compressed trie edges), one holder bit set per run. What each slot holds is encoded per
 * (slot, run) in {@link RunEntries}, one entry with the tick of the run's first block, which also
 * orders the slot's LRU; {@link Residency} cuts and merges runs so that this stays exact at block
 * granularity (see there). The commands of {@link IndexStore} therefore work a run at a time, and
 * memory is per block (key, run, table slot) and per (slot, run), not per (slot, block).
 *
 * <p><b>Reads.</b> {@link #match} finds the prompt's first block by one key-table probe, intersects
 * the candidates with that run's holders, then compares the prompt's next keys with the arena's
 * along the run (no probe per block); at the run's end the next block is either the next run's
 * first (one comparison) or found by a probe. A candidate's match length is the first block it does
 * not hold. The cost is O(runs crossed x candidate words + matched blocks) key comparisons, with a
 * probe per run at most; it takes no lock and allocates nothing.
 *
 * <p><b>Writes.</b> A change is a command applied by the single writer that holds the write lock.
 * Two kinds are treated differently, so that a routing thread never pays for other threads' work:
 * <ul>
 *   <li><em>Hints</em> (an optimistic insert after routing, its rollback) come from request
 *       threads. They go to a lock-free buffer bounded in commands and in bytes
 *       ({@link #bufferBytesLimit}: a command counts its prompt's block keys; an empty buffer takes
 *       any one command); a hint that does not fit is dropped and counted. The submitter then
 *       applies buffered hints only if a {@code tryLock} succeeds, and at most
 *       {@value #DRAIN_COMMANDS} commands or {@value #DRAIN_BLOCKS} blocks of them per call
 *       (always at least one): {@code route} never blocks and never applies an unbounded amount of
 *       work. A hint that finds the buffer empty and the lock free skips the buffer and is applied
 *       at once, as the drain would have applied it first. A rollback of an insert that added
 *       nothing (its prompt was wholly matched before) is not submitted at all.
 *   <li><em>Facts</em> (KV events, capacity changes, slot resets and releases) come from telemetry
 *       and membership threads. Their producer pays its own way: it takes the lock (waiting if
 *       needed), applies the buffered hints first (bounded by the buffer), then its own command. A
 *       fact is therefore never buffered, and it is applied when its call returns.
 * </ul>
 * Readers never wait for writers. A single-threaded caller (the simulator) sees every command
 * applied before its call returns, so runs are deterministic.
 *
 * <p><b>Modes.</b> A slot starts <em>approximate</em>: the router inserts what it routed and mirrors the
 * replica's KV capacity with an LRU (blocks touched deepest-first, so the root is the most recent and
 * eviction trims leaves first, as vLLM's free-block queue does). The first KV event for a slot switches
 * it to <em>exact</em>: stored/removed/cleared events then decide what it holds, and the capacity
 * mirror no longer trims what they store. What the router routes there is still inserted, but only
 * <em>speculatively</em>: an engine stores a prompt's blocks when its prefill runs, which under a
 * queue is seconds after routing, and a router blind for that long spreads one prefix over every
 * replica (the same window llm-d's precise prefix-cache scorer closes with speculative entries). A
 * speculative insert lasts while its attempt is open: when the attempt ends, its blocks that no event
 * touched since are taken back ({@link #endSpeculation}), so events stay the only lasting writers.
 * A speculative insert does trim the slot to the mirrored capacity, as the engine will when the
 * prefill runs: otherwise, for the seconds until the removal events come, the index holds both the
 * new prefix and the one it displaces, and routes the displaced prefix's requests to a replica that
 * is about to drop it. With {@code vllm-kv-events} telemetry this is what kept three replicas from
 * absorbing a crashed fourth's tenants ({@code replica-crash}, hybrid-cost, SLO attainment at seeds
 * 1/2/3: 0.30/0.30/1.00 without trimming, 0.56/1.00/1.00 with; docs/cost-model.md,
 * "Externalities").
 *
 * <p><b>Budget.</b> The budget is enforced against an accounting of the arrays:
 * {@code live blocks x BLOCK_BYTES + live runs x runBytes(stride) + (slot, run) entries x
 * ENTRY_BYTES + fixedBytes}, plus the per-slot arrays at their actual lengths. Each constant is the
 * most its arrays hold per unit between commands, growth slack and uncompacted garbage included
 * (see each), so the accounting is an upper bound of the arrays' bytes whatever the contents, one
 * run per block included ({@code IndexFootprintTest}); prompt-shaped contents use a half to two
 * thirds of it. Before an addition, the globally least recent entries (the oldest tails over all
 * slots) are evicted until it fits; a command that cuts shared runs (a retouch or removal of part
 * of one) evicts the same way when done, so the accounting never exceeds the budget between
 * commands. Within a command the arrays can exceed it by that command's own new keys and by the
 * garbage its evictions leave until it settles.
 *
 * <p><b>Compactions.</b> A write that leaves the run table's garbage past its bound compacts it
 * ({@link RunTable}): every live block moved and the key table filled again, about 22 ms at a
 * million live blocks and 100 ms at four, inside whichever write called for it, a routed insert
 * on a routing thread included. Given an executor, the index runs them apart instead: the write
 * only marks the compaction due and, once it has released the write lock, hands the executor one
 * task, which takes the lock, applies the buffered hints, compacts into new arrays (so that
 * readers keep walking the published ones and never walk again or wait) and applies the hints
 * buffered meanwhile. Meanwhile hints queue in the buffer (and are dropped and counted if it
 * fills) and facts wait for the lock, as they would behind any long write. A write defers only
 * while the arrays stay within the accounting without the compaction; one that would take them
 * past it compacts at once, in place, as without an executor, so the budget holds between
 * commands either way. The old and the new arrays coexist
 * for the length of a compaction into new ones. An executor that refuses the task, or that runs
 * it on the submitting thread ({@code Runnable::run}: the simulator's, for reproducible runs),
 * gets the compaction done at once on that thread, in place where the arrays' lengths suit.
 *
 * <p><b>Epochs.</b> Commands carry the slot's generation; a replica restart or removal draws a new one,
 * and commands from the old generation are dropped, so a late insert cannot resurrect a dead cache.
 *
 * <p>Thread-safety: thread-safe. {@link #match} is lock-free (bar a walk that keeps overlapping
 * compactions in place, which then waits for the write lock); all writes go
 * through the buffer and are applied under {@link #writeLock} (the store, the run table's writer
 * side and the slot allocation's free list each name the lock or monitor that guards them).
 */
final class PrefixIndex {
  /**
   * Bytes per (slot, run) entry: its 24 bytes of entry arrays with a half in growth and removal
   * slack (36), and two to four 4-byte map positions (16).
   */
  static final int ENTRY_BYTES = 52;
  /**
   * Bytes per live block: the arena's 16 bytes per position and the key table's 8, which a
   * compaction keeps within {@link RunTable#COMPACT_BYTES} (63) per live block between commands,
   * rounded up (see {@link RunTable}, "Slack").
   */
  static final int BLOCK_BYTES = 65;
  /** Bytes of the fixed part not derived from the arrays: object and array headers. */
  static final int HEADER_BYTES = 2_048;
  /** Bytes per slot of the slot free list (a boxed slot and a deque cell). */
  static final int FREE_SLOT_BYTES = 32;

  /**
   * Bytes per live run when the table holds {@code stride} holder words per run: its record of
   * {@code 1 + stride} longs, with retired runs up to a quarter of the live ones and a quarter in
   * growth slack ({@code 8 x 1.25 x 1.25 = 12.5} per word).
   */
  static int runBytes(int stride) {
    return 13 * (1 + stride);
  }

  /**
   * The accounting's fixed part at {@code stride} holder words: the arrays' minimum lengths, the
   * {@code minGarbage} dead blocks and retired runs left uncompacted, and the headers.
   */
  static long fixedBytes(int stride, int minGarbage) {
    return 52L * minGarbage + 2_080 + (1L + stride) * (10L * minGarbage + 128) + 528
        + HEADER_BYTES;
  }
  static final long MIN_BUDGET_BYTES = 64 * 1024;
  /** Most hint commands one submitter applies per call. */
  static final int DRAIN_COMMANDS = 16;
  /**
   * Most prompt blocks of hint commands one submitter applies per call (past its first command).
   */
  static final int DRAIN_BLOCKS = 8_192;

  private final long budgetBytes;
  private final int bufferLimit;
  private final long bufferBytesLimit;
  private final AtomicLong bufferedBytes = new AtomicLong();

  private final ReentrantLock writeLock = new ReentrantLock();
  /** Hands due compactions to the executor; null: they run inside the writes that call for them. */
  private final CompactionHandOver handOver;
  /** Whether the last write left a compaction due ({@link IndexStore#compactionDeferred}). */
  private volatile boolean compactionDue;
  /** Compactions run by a task on a thread other than the write's that called for it. */
  private final LongAdder compactionsApart = new LongAdder();
  private final ConcurrentLinkedQueue<IndexStore.Command> buffer = new ConcurrentLinkedQueue<>();
  private final AtomicInteger buffered = new AtomicInteger();
  private final LongAdder droppedHints = new LongAdder();
  private final AtomicInteger generations = new AtomicInteger();

  // slot allocation
  private final Object slotLock = new Object();
  private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();
  private int slotHighWater;
  private volatile int words = 1;

  /** The single writer's state; only touched while holding {@link #writeLock}. */
  private final IndexStore store;
  /** The reader-visible arrays; readers only take its published {@link RunTable.View}. */
  private final RunTable table;

  private volatile long publishedEntries;
  private volatile long publishedBlocks;
  private volatile long publishedBytes;
  private volatile int publishedCompactions;

  PrefixIndex(long budgetBytes, long defaultCapacityBlocks, int bufferLimit) {
    this(budgetBytes, defaultCapacityBlocks, bufferLimit, RunTable.MIN_GARBAGE);
  }

  /**
   * As above; {@code minGarbage} is the dead blocks or retired runs below which the run table is
   * not compacted (tests lower it to compact often).
   */
  PrefixIndex(long budgetBytes, long defaultCapacityBlocks, int bufferLimit, int minGarbage) {
    this(budgetBytes, defaultCapacityBlocks, bufferLimit, minGarbage, null);
  }

  /**
   * As above; compactions run on {@code compactionExecutor} apart from the writes that call for
   * them, or inside those writes if it is null (class notes, "Compactions").
   */
  PrefixIndex(long budgetBytes, long defaultCapacityBlocks, int bufferLimit, int minGarbage,
      Executor compactionExecutor) {
    checkArgument(budgetBytes >= MIN_BUDGET_BYTES, "indexBudgetBytes: %s (expected: >= %s)",
        budgetBytes, MIN_BUDGET_BYTES);
    checkArgument(defaultCapacityBlocks >= 1, "defaultCapacityBlocks: %s (expected: >= 1)",
        defaultCapacityBlocks);
    checkArgument(bufferLimit >= 1, "bufferLimit: %s (expected: >= 1)", bufferLimit);
    checkArgument(minGarbage >= 0, "minGarbage: %s (expected: >= 0)", minGarbage);
    this.budgetBytes = budgetBytes;
    this.bufferLimit = bufferLimit;
    this.bufferBytesLimit = Math.max(MIN_BUDGET_BYTES, budgetBytes / 8);
    this.store = new IndexStore(budgetBytes, defaultCapacityBlocks, this::freeSlot, minGarbage);
    this.table = store.table();
    this.handOver = compactionExecutor == null ? null
        : new CompactionHandOver(compactionExecutor, this::compactDue);
    if (handOver != null) {
      store.deferCompactions();
    }
    publish();
  }

  private void freeSlot(int slot) {
    synchronized (slotLock) {
      freeSlots.addLast(slot);
    }
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
    apply(new IndexStore.Reset(slot, gen));
    return gen;
  }

  /** Forgets {@code slot}; it may be reused by another replica once the release is applied. */
  void release(int slot) {
    apply(new IndexStore.Release(slot));
  }

  /** Words in a candidate mask: enough for every allocated slot. */
  int words() {
    return words;
  }

  // ---------------------------------------------------------------------------------------- reads

  /**
   * For every slot set in {@code candidates}, writes to {@code matchedOut[slot]} the number of leading
   * blocks of {@code prompt} that slot holds. {@code alive} is scratch of at least the mask's length.
   * Lock-free ({@link IndexWalk}), unless its walks overlap compactions in place
   * {@value IndexWalk#RETRIES} + 1 times: it then walks under the write lock.
   */
  void match(PromptKey prompt, long[] candidates, int maskWords, long[] alive, int[] matchedOut) {
    match(prompt, candidates, maskWords, alive, matchedOut, null);
  }

  /**
   * {@link #match(PromptKey, long[], int, long[], int[])}, recording in {@code trace} (if not null)
   * where the prompt's leading blocks are, for the routed insert that may follow on this thread
   * ({@link #insertRouted(IndexStore.Insert, int, int, PromptKey, int, WalkTrace)}).
   */
  void match(PromptKey prompt, long[] candidates, int maskWords, long[] alive, int[] matchedOut,
      WalkTrace trace) {
    if (!IndexWalk.match(table, prompt, candidates, maskWords, alive, matchedOut, trace)) {
      writeLock.lock();
      try {
        IndexWalk.walk(table, prompt, candidates, maskWords, alive, matchedOut, trace);
      } finally {
        writeLock.unlock();
      }
    }
  }

  // --------------------------------------------------------------------------------------- writes

  /**
   * Believes {@code slot} now holds the first {@code blocks} blocks of {@code prompt} (it was routed
   * there). {@code matchedBlocks} is what the slot was believed to hold before, kept for rollback. A
   * hint: dropped (and counted) when the write buffer is over its limit.
   */
  IndexStore.Insert insertRouted(int slot, int gen, PromptKey prompt, int matchedBlocks) {
    IndexStore.Insert c = new IndexStore.Insert();
    return insertRouted(c, slot, gen, prompt, matchedBlocks) ? c : null;
  }

  /**
   * {@link #insertRouted(int, int, PromptKey, int)} into {@code record}, a record of an earlier
   * insert that is {@linkplain IndexStore.Insert#reusable reusable} (or a new one): nothing is
   * allocated when the insert is applied at once. Whether it was submitted (false: dropped).
   */
  boolean insertRouted(IndexStore.Insert record, int slot, int gen, PromptKey prompt,
      int matchedBlocks) {
    return insertRouted(record, slot, gen, prompt, matchedBlocks, null);
  }

  /**
   * {@link #insertRouted(IndexStore.Insert, int, int, PromptKey, int)} after this thread's walk of
   * {@code prompt} recorded in {@code trace} (or null): applied at once, the insert starts from the
   * positions the walk found if no compaction came between ({@link WalkTrace}).
   */
  boolean insertRouted(IndexStore.Insert record, int slot, int gen, PromptKey prompt,
      int matchedBlocks, WalkTrace trace) {
    record.set(slot, gen, prompt, matchedBlocks, trace);
    return submit(record);
  }

  /**
   * Undoes an insert whose request never reached prefill, where nothing touched the blocks since.
   * Nothing is submitted for an insert that added nothing ({@link IndexStore.Insert#addsNothing}).
   */
  void rollback(IndexStore.Insert insert) {
    if (!insert.addsNothing()) {
      submit(insert.rollback(false));
    }
  }

  /**
   * The attempt behind {@code insert} ended: if the insert was speculative (its slot is exact), its
   * blocks that no KV event confirmed since are taken back, as for {@link #rollback}. Nothing is
   * submitted for an insert that added nothing: routing to the replica that already held the whole
   * prompt, the common case, then costs no command and no buffer node.
   */
  void endSpeculation(IndexStore.Insert insert) {
    if (!insert.addsNothing()) {
      submit(insert.rollback(true));
    }
  }

  /** Blocks an event says are resident; the slot is in exact mode. */
  void kvStored(int slot, int gen, long[] keys) {
    kvStored(slot, gen, keys, true);
  }

  /** Blocks an event says were evicted; the slot is in exact mode. */
  void kvRemoved(int slot, int gen, long[] keys) {
    kvRemoved(slot, gen, keys, true);
  }

  /**
   * Blocks an event says are resident; {@code exact} puts the slot in exact mode, else (a degraded
   * replica) leaves it approximate, where the router's own inserts continue beside the events.
   */
  void kvStored(int slot, int gen, long[] keys, boolean exact) {
    apply(new IndexStore.Stored(slot, gen, keys, exact));
  }

  /** Blocks an event says were evicted; {@code exact} as for {@link #kvStored}. */
  void kvRemoved(int slot, int gen, long[] keys, boolean exact) {
    apply(new IndexStore.Removed(slot, gen, keys, exact));
  }

  void kvCleared(int slot, int gen) {
    apply(new IndexStore.Cleared(slot, gen));
  }

  /** Mirrors the replica's reported KV capacity, in index blocks. */
  void setCapacity(int slot, int gen, long blocks) {
    apply(new IndexStore.Capacity(slot, gen, Math.max(1, blocks)));
  }

  /** Applies everything buffered, waiting for the lock (tests, shutdown). */
  void flush() {
    writeLock.lock();
    try {
      drainLocked();
    } finally {
      writeLock.unlock();
    }
    handOverCompaction();
  }

  /**
   * The byte bound of the hint buffer: an eighth of the budget, at least
   * {@value #MIN_BUDGET_BYTES}.
   */
  long bufferBytesLimit() {
    return bufferBytesLimit;
  }

  /** A fact: applied by the calling thread under the lock, after the hints buffered before it. */
  private void apply(IndexStore.Command c) {
    writeLock.lock();
    try {
      drainLocked();
      c.apply(store);
      publish();
    } finally {
      writeLock.unlock();
    }
    handOverCompaction();
  }

  /**
   * Hands the executor the compaction the last writes left due (class notes, "Compactions").
   * Called with the write lock released.
   */
  private void handOverCompaction() {
    if (compactionDue) {
      handOver.handOver();
    }
  }

  /**
   * Takes the write lock, applies the buffered hints, runs the compaction that is due, then
   * applies the hints buffered meanwhile, so that the routing threads do not (a drain applies at
   * most {@value #DRAIN_COMMANDS} a call, and behind a long compaction they are many).
   */
  private void compactDue(boolean inPlace) {
    writeLock.lock();
    try {
      drainBuffered();
      int before = table.compactions();
      store.compactDeferred(inPlace);
      if (!inPlace) {
        compactionsApart.add(table.compactions() - before);
      }
      drainBuffered();
      publish();
    } finally {
      writeLock.unlock();
    }
  }

  /** Applies the commands buffered when called (not those buffered while it runs). */
  private void drainBuffered() {
    IndexStore.Command c;
    for (int n = buffered.get(); n > 0 && (c = poll()) != null; n--) {
      c.apply(store);
    }
  }


  /**
   * A hint: buffered if it fits (else dropped and counted), then a bounded share of hints applied.
   * When nothing is buffered and the write lock is free, the hint is applied at once instead: a
   * drain would have applied it first, so the result is the same, and the buffer's node (24 bytes
   * per routed insert) is never allocated. A hint submitted concurrently is then ordered after it,
   * as it would be had it been buffered a moment later.
   */
  private boolean submit(IndexStore.Command c) {
    boolean submitted = submitLocking(c);
    handOverCompaction();
    return submitted;
  }

  /** {@link #submit}, bar the hand-over of a compaction it leaves due. */
  private boolean submitLocking(IndexStore.Command c) {
    if (buffered.get() == 0 && writeLock.tryLock()) {
      try {
        if (buffered.get() == 0) {
          c.apply(store);
          // the same bound as a drain that applied c first
          drainSome(1, c.blocks());
          return true;
        }
        // others buffered meanwhile: c goes behind them
        if (!enqueue(c)) {
          return false;
        }
        drainSome(0, 0);
        return true;
      } finally {
        writeLock.unlock();
      }
    }
    if (!enqueue(c)) {
      return false;
    }
    if (writeLock.tryLock()) {
      try {
        drainSome(0, 0);
      } finally {
        writeLock.unlock();
      }
    }
    return true;
  }

  /** Buffers {@code c} if it fits in both bounds; else counts it dropped and returns false. */
  private boolean enqueue(IndexStore.Command c) {
    long bytes = c.bufferedBytes();
    long before;
    do {
      before = bufferedBytes.get();
      // an empty buffer takes any one command, so a prompt larger than the bound is not always lost
      if (before > 0 && before + bytes > bufferBytesLimit) {
        droppedHints.increment();
        return false;
      }
    } while (!bufferedBytes.compareAndSet(before, before + bytes));
    if (buffered.incrementAndGet() > bufferLimit) {
      buffered.decrementAndGet();
      bufferedBytes.addAndGet(-bytes);
      droppedHints.increment();
      return false;
    }
    c.lentToBuffer();
    buffer.add(c);
    return true;
  }

  /**
   * Applies buffered commands until {@link #DRAIN_COMMANDS} commands or more than
   * {@link #DRAIN_BLOCKS} blocks were applied in this call, counting the {@code applied} commands
   * of {@code appliedBlocks} blocks the caller applied before.
   */
  private void drainSome(int applied, long appliedBlocks) {
    long blocks = appliedBlocks;
    for (int n = applied; n < DRAIN_COMMANDS && blocks <= DRAIN_BLOCKS; n++) {
      IndexStore.Command c = poll();
      if (c == null) {
        break;
      }
      c.apply(store);
      blocks += c.blocks();
    }
    publish();
  }

  private void drainLocked() {
    IndexStore.Command c;
    while ((c = poll()) != null) {
      c.apply(store);
    }
    publish();
  }

  private IndexStore.Command poll() {
    IndexStore.Command c = buffer.poll();
    if (c != null) {
      buffered.decrementAndGet();
      bufferedBytes.addAndGet(-c.bufferedBytes());
    }
    return c;
  }

  private void publish() {
    compactionDue = store.compactionDeferred();
    publishedCompactions = table.compactions();
    publishedEntries = store.entries();
    publishedBlocks = store.blocks();
    publishedBytes = store.accountedBytes();
  }

  /** Hint commands waiting in the buffer. */
  int bufferedCommands() {
    return buffered.get();
  }

  /** Bytes the waiting hint commands account for. */
  long bufferedBytes() {
    return bufferedBytes.get();
  }

  /** The write lock, for tests that hold it from another thread to see what submitters do. */
  ReentrantLock writeLockForTests() {
    return writeLock;
  }

  // ------------------------------------------------------------------------------- observability

  /** Entries {@code slot} holds, lock-free (as of the last applied write). */
  int slotEntriesNow(int slot) {
    return store.slotEntriesNow(slot);
  }

  long entryCount() {
    return publishedEntries;
  }

  long blockCount() {
    return publishedBlocks;
  }

  /** The accounting the budget is enforced against (as of the last applied write). */
  long estimatedBytes() {
    return publishedBytes;
  }

  long budgetBytes() {
    return budgetBytes;
  }

  long droppedHints() {
    return droppedHints.sum();
  }

  /** Compactions so far, lock-free (as of the last applied write or compaction). */
  long compactionCount() {
    return publishedCompactions;
  }

  /** Compaction tasks the executor refused, each run on the submitting thread instead. */
  long compactionsRefused() {
    return handOver == null ? 0 : handOver.refused();
  }

  /** Compactions run apart from the writes that called for them, on the executor's threads. */
  long compactionsApart() {
    return compactionsApart.sum();
  }

  /** Whether the last write left a compaction due that has not run yet (lock-free). */
  boolean compactionDue() {
    return compactionDue;
  }

  /**
   * Bytes the index's arrays hold now (after applying buffered commands), computed from their
   * actual lengths (headers not included): at most {@link #estimatedBytes}, which is at most the
   * budget. Prompt-shaped contents use a half to two thirds of the accounting; one run per block
   * about four fifths.
   */
  long footprintBytes() {
    writeLock.lock();
    try {
      drainLocked();
      return store.footprintBytes();
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * The part of the accounting taken from actual lengths (per-slot arrays, slot free list, command
   * scratch), after applying buffered commands.
   */
  long slotArrayBytes() {
    writeLock.lock();
    try {
      drainLocked();
      return store.slotArrayBytes();
    } finally {
      writeLock.unlock();
    }
  }

  /** Entries held by {@code slot} (after applying buffered commands). */
  int slotEntries(int slot) {
    writeLock.lock();
    try {
      drainLocked();
      return store.slotEntries(slot);
    } finally {
      writeLock.unlock();
    }
  }

  /** Compactions of the run table so far (after applying buffered commands). */
  int compactions() {
    writeLock.lock();
    try {
      drainLocked();
      return table.compactions();
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Compactions of the run table so far that rewrote its published arrays in place (after applying
   * buffered commands).
   */
  int compactionsInPlace() {
    writeLock.lock();
    try {
      drainLocked();
      return table.compactionsInPlace();
    } finally {
      writeLock.unlock();
    }
  }

  /** Whether {@code slot} is in exact (KV-event) mode. */
  boolean isExact(int slot) {
    writeLock.lock();
    try {
      drainLocked();
      return store.isExact(slot);
    } finally {
      writeLock.unlock();
    }
  }
}
