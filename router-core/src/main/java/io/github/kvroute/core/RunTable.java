package io.github.kvroute.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The reader-visible half of the prefix index: every known block key in an arena where the blocks
 * of one prompt sit side by side, grouped into <em>runs</em> (arena ranges whose blocks all have the
 * same holder slots), each run with one holder bit set.
 *
 * <h2>Design notes</h2>
 * <b>Why runs.</b> Because a block key is a chained hash, it names its whole prefix: a table keyed by
 * it is a trie whose nodes are found in O(1). Storing a prompt's new blocks contiguously, in prompt
 * order, makes that trie path-compressed: a walk that found block {@code i} at arena position
 * {@code b} checks block {@code i + 1} by comparing one key at {@code b + 1}, with no hash probe, and
 * the holder set is read once per run, not once per block. A walk therefore costs one probe and one
 * holder intersection per run it crosses plus one key comparison per matched block.
 *
 * <p><b>Layout.</b> Two flat {@code long[]} arrays, no object per block or run, laid out so that a
 * walk touches one cache line per thing it looks at. The arena holds per block its key and its run
 * number side by side; the run records hold per run its bounds (start and end packed in one word, so
 * a reader reads them together) followed by its {@code stride} holder words (one per 64 slots). The
 * {@link KeyTable} is open-addressed with linear probing, one {@code long} per position packing a
 * fingerprint of the key with its arena position, so a probe reads one array and only a fingerprint
 * hit reads the arena; its length can be any (see there), so growing it reads no keys. Crossing a
 * run therefore costs three cache misses (table, arena, run record) however long the run is, plus
 * the sequential key comparisons.
 *
 * <p><b>Between compactions nothing a reader holds is reused.</b> Arena positions and run numbers
 * are only ever appended: a block whose last holder leaves stays in its run with no holder bits
 * (dead), a run split off or merged away keeps its number, retired. A key therefore names the same
 * arena position from one compaction to the next. A compaction ({@link #compact}, when dead blocks
 * exceed 7/16 of the live ones or retired runs a quarter of the live ones, and either the minimum
 * garbage) moves the live blocks down to the arena's start, in order, and the live runs into new
 * run records, published as a new {@link View}. It works in place, in the arena and in the key
 * table (emptied and filled again), when their lengths suit the blocks it keeps, since fresh
 * arrays cost fresh memory: where compactions come every few hundred prompts (unique prompts
 * churning a full index) they were most of the index's allocations and page faults. A reader of
 * arrays being rewritten can misread them, so a compaction that rewrites brackets itself with
 * {@link #rewrites()}, and a walk that overlapped one walks again ({@link IndexWalk}); bound checks
 * keep a misread walk within the arrays, and a probe of the key table within its length. When the
 * retired runs alone call for a compaction, {@link #compactAsDue} only drops their records and
 * renumbers the rest in place ({@link #dropRetiredRuns}): no block moves and the key table stays,
 * which at a million live blocks is a pass of about 1.5 ms instead of 22-25 ms, on whichever thread
 * applied the write (a routed insert applied at once: the routing thread).
 *
 * <p><b>Slack.</b> The arena and the run records grow by a quarter; a compaction leaves room for
 * half of the live blocks in a new arena, so the 7/16 more that bring the next compaction do not
 * grow it, and keeps an arena of 1.25 to 1.625 positions per live block; it leaves room for a
 * quarter of the live runs in the run records. The key table, when half full, grows to
 * {@value #TABLE_GROWTH} positions per arena position in use; a compaction keeps it while it has
 * twice the arena's capacity (so the appends until the next compaction do not rehash it) and at
 * most {@code 3 x 1.4375} positions per live block, else builds one of 3.5 per live block. A
 * compaction therefore leaves at most {@code 16 x 1.625 + 8 x 4.3125 = 60.5} bytes of arena and
 * table per live block, and is due whenever they exceed {@value #COMPACT_BYTES} (past their minimum
 * lengths and the garbage not worth compacting), which appends and evictions in step reach only
 * with the dead blocks: within {@link PrefixIndex#BLOCK_BYTES} per live block whatever the
 * contents. Retired runs up to a quarter of the live ones bound the run records
 * ({@link PrefixIndex#runBytes}). Both hold between the index's commands.
 *
 * <p><b>Concurrency</b> is single-writer / many-readers. Only the index's writer (holding its write
 * lock) calls the mutating methods; readers take no lock. A block's run and key are written before
 * its table entry, a new run's bounds and words before any block points at it, all with release
 * stores, and readers load them with acquire loads. A reader can still see a run mid-split (one block
 * more or fewer than a moment later, or the holders of a run that a block has just left): the same
 * uncertainty any routing index has. Readers bound-check every index they follow, so a stale view
 * ends a walk early, never reads out of bounds.
 *
 * <p>Not thread-safe for writers: every mutating method must be called by the single writer.
 */
final class RunTable {
  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  static final int MIN_BLOCKS = 64;
  static final int MIN_RUNS = 16;
  /** Compactions are not worth it below this many dead blocks or retired runs. */
  static final int MIN_GARBAGE = 256;
  /** Key-table positions per arena position in use that the table grows to when half full. */
  static final int TABLE_GROWTH = 3;
  /**
   * Dead blocks per live block, in sixteenths, past which a compaction is due: the appends until
   * then fit the room a compaction leaves (half the live blocks), so neither the arena nor the key
   * table grows between two compactions while the live blocks hold steady.
   */
  static final int DEAD_BLOCKS_NUM = 7;
  /**
   * Key-table positions per live block, in sixteenths, up to which a compaction keeps the table
   * (emptied and filled again) rather than allocating a new one: {@code 3 x 1.4375}, the length a table
   * grown to three positions per arena position reaches at the compaction that dead blocks bring.
   */
  static final int KEPT_TABLE_NUM = 69;
  /**
   * Arena positions per live block, in sixteenths, up to which a compaction keeps the arena
   * (compacted in place) rather than copying the live blocks to a new one; it keeps it from 1.25.
   */
  static final int KEPT_ARENA_NUM = 26;
  /**
   * Key-table positions per live block, in sixteenths, of the table a compaction builds when it
   * cannot keep the one it has: 3.5, so the next compaction keeps it unless the live blocks have
   * grown by a sixth (past twice the arena's capacity) or fallen by a fifth.
   */
  static final int FRESH_TABLE_NUM = 56;
  /**
   * Bytes of arena and key table per live block past which a compaction is due whatever the
   * garbage: a compaction leaves at most {@code 16 x 1.625 + 8 x 4.3125 = 60.5}, and this stays
   * within {@link PrefixIndex#BLOCK_BYTES}.
   */
  static final int COMPACT_BYTES = 63;

  /** One published set of arrays; a reader uses one for a whole walk. */
  static final class View {
    /** Per block {@code b}: its key at {@code 2b}, its run at {@code 2b + 1}. */
    final long[] arena;
    final long[] table;
    /** Per run {@code r}: {@code start << 32 | end} at {@code r x (1 + stride)}, then its words. */
    final long[] runs;
    final int stride;
    final int blocks;
    /**
     * The compactions before these arrays were published: positions read in views of one count
     * stay true until the next compaction ({@link WalkTrace}).
     */
    final int layout;

    View(long[] arena, long[] table, long[] runs, int stride, int layout) {
      this.arena = arena;
      this.table = table;
      this.runs = runs;
      this.stride = stride;
      this.blocks = arena.length >>> 1;
      this.layout = layout;
    }

    /** The arena position holding {@code key} (live or dead), or -1. */
    int find(long key) {
      return KeyTable.find(table, arena, blocks, key);
    }

    /**
     * Loads the key-table position where a probe for {@code key} starts and returns it (a value of
     * no meaning to the caller): issued early, its cache miss overlaps the caller's other loads.
     */
    long touch(long key) {
      return KeyTable.touch(table, key);
    }

    /**
     * The record offset of block {@code b}'s run ({@code r x (1 + stride)}), or -1 if these arrays do
     * not know the run yet.
     */
    int record(int b) {
      long r = (long) LONGS.getAcquire(arena, 2 * b + 1);
      long at = r * (1 + stride);
      return at + stride < runs.length ? (int) at : -1;
    }

    /** Holder word {@code w} (slots {@code 64w .. 64w+63}) of the run at {@code record}. */
    long word(int record, int w) {
      return w < stride ? (long) LONGS.getAcquire(runs, record + 1 + w) : 0;
    }

    /** The end of the run at {@code record}, capped at these arrays' arena. */
    int end(int record) {
      return Math.min((int) (long) LONGS.getAcquire(runs, record), blocks);
    }

    long keyAt(int b) {
      return (long) LONGS.getOpaque(arena, 2 * b);
    }
  }

  private volatile View view;
  /** Odd while a compaction rewrites published arrays in place (see {@link #rewrites()}). */
  private final SeqLock rewrites = new SeqLock();
  /** Writer-side copies of the published arrays, always the current ones. */
  private long[] arena = new long[2 * MIN_BLOCKS];
  private long[] table = new long[2 * MIN_BLOCKS];
  private long[] runs = new long[2 * MIN_RUNS];
  private int stride = 1;
  private int blockTop;
  private int runTop;
  private int liveBlocks;
  private int liveRuns;
  private int compactions;
  /** Compactions that rewrote published arrays in place (the arena, the key table or both). */
  private int compactionsInPlace;

  private final int minGarbage;

  /** {@code minGarbage}: dead blocks or retired runs below which no compaction is worth it. */
  RunTable(int minGarbage) {
    this.minGarbage = minGarbage;
    publish();
  }

  /** Reader-side: the arrays to use for one walk; lock-free. */
  View view() {
    return view;
  }

  /**
   * Reader-side: the version of the compactions that rewrite published arrays in place, odd while
   * one is under way. A walk that read it even before taking its {@link #view} and finds it
   * unchanged after saw none; otherwise it may have misread the arrays, and walks again.
   */
  SeqLock rewrites() {
    return rewrites;
  }

  private void publish() {
    view = new View(arena, table, runs, stride, compactions);
  }

  // ------------------------------------------------------------------------------ writer reads

  int find(long key) {
    return view.find(key);
  }

  /**
   * Loads the key-table positions where the probes for {@code keys[from, to)} start and returns a
   * value of no meaning, for the caller to keep: the loads are independent, so the processor overlaps
   * their cache misses, where a probe per key would wait for each in turn before the next.
   */
  long touch(long[] keys, int from, int to) {
    long[] t = table;
    long sum = 0;
    for (int i = from; i < to; i++) {
      sum += KeyTable.touch(t, keys[i]);
    }
    return sum;
  }

  long key(int b) {
    return arena[2 * b];
  }

  int runOf(int b) {
    return (int) arena[2 * b + 1];
  }

  /**
   * How many of {@code keys[from, to)} sit at the arena positions {@code b, b + 1, ...}, in order:
   * the length of the stretch from {@code from} that is stored side by side from {@code b}.
   */
  int matching(long[] keys, int from, int to, int b) {
    long[] a = arena;
    int n = Math.min(to - from, blockTop - b);
    int i = 0;
    while (i < n && a[2 * (b + i)] == keys[from + i]) {
      i++;
    }
    return i;
  }

  private int rec(int r) {
    return r * (1 + stride);
  }

  int start(int r) {
    return (int) (runs[rec(r)] >>> 32);
  }

  int end(int r) {
    return (int) runs[rec(r)];
  }

  int length(int r) {
    long v = runs[rec(r)];
    return (int) v - (int) (v >>> 32);
  }

  int blockTop() {
    return blockTop;
  }

  int stride() {
    return stride;
  }

  /** Holder word {@code w} of run {@code r} (0 past the stride). */
  long word(int r, int w) {
    return w < stride ? runs[rec(r) + 1 + w] : 0;
  }

  boolean holds(int r, int slot) {
    return (word(r, slot >>> 6) & (1L << slot)) != 0;
  }

  boolean anyHolder(int r) {
    for (int i = rec(r) + 1, end = i + stride; i < end; i++) {
      if (runs[i] != 0) {
        return true;
      }
    }
    return false;
  }

  boolean sameHolders(int r1, int r2) {
    int a = rec(r1) + 1;
    int b = rec(r2) + 1;
    for (int w = 0; w < stride; w++) {
      if (runs[a + w] != runs[b + w]) {
        return false;
      }
    }
    return true;
  }

  /** Blocks in runs with at least one holder. */
  int liveBlocks() {
    return liveBlocks;
  }

  /** Runs with at least one holder. */
  int liveRuns() {
    return liveRuns;
  }

  // ----------------------------------------------------------------------------- writer writes

  /**
   * Appends {@code key} (not yet known) at the arena's end: in run {@code extend} if that run ends
   * where the block goes (the previous new block of the same prompt) and has no holders, else in a
   * run of its own. Returns its position; the block has no holders.
   */
  int append(long key, int extend) {
    if (2 * blockTop == arena.length) {
      arena = Arrays.copyOf(arena, 2 * (blockTop + Math.max(MIN_BLOCKS, blockTop / 4)));
      publish();
    }
    if ((blockTop + 1) * 2L > table.length) {
      // a third full: half full again once the blocks have grown by half
      rehash(TABLE_GROWTH * (blockTop + 1));
    }
    int b = blockTop++;
    int r = extend >= 0 && end(extend) == b && !anyHolder(extend) ? extend : newRun(b, b);
    LONGS.setRelease(arena, 2 * b + 1, (long) r);
    LONGS.setRelease(arena, 2 * b, key);
    setBounds(r, start(r), b + 1);
    KeyTable.put(table, KeyTable.entry(key, b));
    return b;
  }

  /**
   * Makes {@code b} the first block of a run, splitting the run it is in; returns the run number
   * given to the part that moved (the shorter one), or -1 if {@code b} already starts a run or is
   * the arena's end. The moved part has the same holders.
   */
  int splitAt(int b) {
    if (b >= blockTop || b <= 0) {
      return -1;
    }
    int r = runOf(b);
    int s = start(r);
    if (s == b) {
      return -1;
    }
    int e = end(r);
    boolean moveLeft = b - s < e - b;
    int from = moveLeft ? s : b;
    int to = moveLeft ? b : e;
    int fresh = newRun(from, to);
    System.arraycopy(runs, rec(r) + 1, runs, rec(fresh) + 1, stride);
    VarHandle.releaseFence();
    for (int i = from; i < to; i++) {
      LONGS.setRelease(arena, 2 * i + 1, (long) fresh);
    }
    setBounds(r, moveLeft ? b : s, moveLeft ? e : b);
    if (anyHolder(r)) {
      liveRuns++;
    }
    return fresh;
  }

  /**
   * Merges run {@code right} into the run ending where it starts, {@code left} (the caller checked
   * that their holders agree); the shorter one's blocks move, and its number, returned, is retired.
   */
  int merge(int left, int right) {
    boolean keepLeft = length(left) >= length(right);
    int keep = keepLeft ? left : right;
    int gone = keepLeft ? right : left;
    int from = start(left);
    int to = end(right);
    for (int i = start(gone), e = end(gone); i < e; i++) {
      LONGS.setRelease(arena, 2 * i + 1, (long) keep);
    }
    setBounds(keep, from, to);
    setBounds(gone, start(gone), start(gone));
    if (anyHolder(keep)) {
      liveRuns--;
    }
    // the retired run keeps its holder words: a reader that read its number a moment ago still
    // gets the holders its blocks had
    return gone;
  }

  /** Sets {@code slot}'s bit on run {@code r}; widens every run first if the slot needs it. */
  void addHolder(int r, int slot) {
    int w = slot >>> 6;
    if (w >= stride) {
      widen(w + 1);
    }
    if (!anyHolder(r)) {
      liveBlocks += length(r);
      liveRuns++;
    }
    int at = rec(r) + 1 + w;
    LONGS.setRelease(runs, at, runs[at] | (1L << slot));
  }

  /** Clears {@code slot}'s bit on run {@code r}. */
  void removeHolder(int r, int slot) {
    int at = rec(r) + 1 + (slot >>> 6);
    LONGS.setRelease(runs, at, runs[at] & ~(1L << slot));
    if (!anyHolder(r)) {
      liveBlocks -= length(r);
      liveRuns--;
    }
  }

  /**
   * Whether dead blocks or retired runs are worth a {@link #compact}, or the arena and key table
   * hold more than {@link #COMPACT_BYTES} per live block (past their minimum lengths and the
   * garbage not worth compacting).
   */
  boolean wantsCompaction() {
    return blocksDue() || runTop - liveRuns > deadRunsBound();
  }

  /**
   * Whether the dead blocks, or the arena's and key table's bytes, call for a whole
   * {@link #compact}: only one moves the blocks.
   */
  private boolean blocksDue() {
    return blockTop - liveBlocks > Math.max(minGarbage, (long) liveBlocks * DEAD_BLOCKS_NUM / 16)
        || blockArrayBytes() > (long) COMPACT_BYTES * liveBlocks + minBlockArrayBytes(minGarbage);
  }

  /** The most dead runs (retired, or with blocks but no holders) left between compactions. */
  private int deadRunsBound() {
    return Math.max(minGarbage, liveRuns / 4);
  }

  /** Bytes of the arena and the key table, from their lengths. */
  long blockArrayBytes() {
    return 8L * (arena.length + table.length);
  }

  /**
   * What the arena and the key table may hold beyond {@link #COMPACT_BYTES} per live block: their
   * minimum lengths, and {@code minGarbage} dead blocks at 52 bytes each (no more than the budget's
   * fixed part counts for them, {@link PrefixIndex#fixedBytes}).
   */
  static long minBlockArrayBytes(int minGarbage) {
    return 8L * 4 * MIN_BLOCKS + 52L * minGarbage;
  }

  /**
   * Moves the live blocks (in arena order, so each run stays contiguous) to the arena's start, in
   * place or in a new arena, the live runs into new records, fills the key table again (emptied or
   * new: see the class notes on which) and publishes them. Returns the old run number -> new number
   * map (-1 for a run that is gone).
   */
  int[] compact() {
    return compact(true);
  }

  /**
   * {@link #compact()}, in new arrays only when {@code inPlace} is false: readers on other threads
   * then never misread a rewrite, so none walks again or waits for the write lock (a compaction
   * the index runs apart from the write that called for it: {@link PrefixIndex}, "Compactions").
   */
  int[] compact(boolean inPlace) {
    int[] renumber = new int[runTop];
    Arrays.fill(renumber, -1);
    int runCount = Math.max(MIN_RUNS, liveRuns + liveRuns / 4);
    long[] rs = new long[runCount * (1 + stride)];
    int capacity = arena.length >>> 1;
    boolean keepArena = inPlace && capacity >= Math.max(MIN_BLOCKS, liveBlocks + liveBlocks / 4)
        && capacity <= (long) liveBlocks * KEPT_ARENA_NUM / 16 + MIN_BLOCKS;
    int blocks = keepArena ? capacity : Math.max(MIN_BLOCKS, liveBlocks + liveBlocks / 2);
    boolean keepTable = inPlace && table.length >= 2 * blocks
        && table.length <= (long) liveBlocks * KEPT_TABLE_NUM / 16 + 2 * MIN_BLOCKS;
    if (keepArena || keepTable) {
      // until the new view is published, readers of these arrays can misread them: a walk checks
      // the version around it (IndexWalk)
      rewrites.beginWrite();
    }
    // in place, each block moves to a position at or before its own, which was read already
    long[] a = keepArena ? arena : new long[2 * blocks];
    int nb = 0;
    int nr = 0;
    for (int b = 0; b < blockTop; ) {
      int r = runOf(b);
      int e = end(r);
      if (anyHolder(r)) {
        renumber[r] = nr;
        int at = nr * (1 + stride);
        System.arraycopy(runs, rec(r) + 1, rs, at + 1, stride);
        rs[at] = ((long) nb << 32) | (nb + e - b);
        for (int i = b; i < e; i++) {
          a[2 * nb] = arena[2 * i];
          a[2 * nb++ + 1] = nr;
        }
        nr++;
      }
      b = e;
    }
    if (keepArena) {
      // key 0 marks the arena's unused tail for the walks
      Arrays.fill(a, 2 * nb, 2 * blockTop, 0L);
    }
    compactions++;
    if (keepTable) {
      // emptied and filled again: a fresh table would be fresh memory
      Arrays.fill(table, 0L);
    } else {
      // twice the arena's capacity (the appends until the next compaction, up to 7/16 more blocks,
      // do not rehash it) and more, so that the next compaction keeps it though the live blocks grow
      table = new long[Math.max(2 * blocks, (int) ((long) liveBlocks * FRESH_TABLE_NUM / 16))];
    }
    // plain stores: readers of this table wait for the publication below (or check rewrites)
    KeyTable.fill(table, a, nb);
    arena = a;
    runs = rs;
    blockTop = nb;
    runTop = nr;
    publish();
    if (keepArena || keepTable) {
      rewrites.endWrite();
      compactionsInPlace++;
    }
    return renumber;
  }

  /**
   * The compaction {@link #wantsCompaction} calls for, or the lighter {@link #dropRetiredRuns}
   * when only the retired runs call for one and dropping them is enough: the dead blocks and the
   * arrays' lengths are within their bounds, and once the runs merged away (without blocks) are
   * dropped, the dead runs left are at most half their bound. Returns the renumbering as
   * {@link #compact} does.
   */
  int[] compactAsDue() {
    return compactAsDue(true);
  }

  /** {@link #compactAsDue()}, rewriting no published array when {@code inPlace} is false. */
  int[] compactAsDue(boolean inPlace) {
    int retired = 0;
    for (int r = 0; r < runTop; r++) {
      if (start(r) == end(r)) {
        retired++;
      }
    }
    boolean onlyRunsDue = retired > 0 && !blocksDue()
        && runTop - retired - liveRuns <= deadRunsBound() / 2;
    return onlyRunsDue ? dropRetiredRuns(retired, inPlace) : compact(inPlace);
  }

  /**
   * Drops the {@code retired} runs (merged away, so without blocks): every block stays where it is,
   * so the key table stays as it is; the runs with blocks, dead ones too, get new records numbered
   * in arena order, and each block's run number is rewritten in place (bracketed for readers, as a
   * compaction in place is). A churning index retires runs far faster than it leaves dead blocks
   * (a run, or the part an eviction cuts off, left without holders merges with the dead run
   * beside it), and a whole compaction to free their records moved every live block and filled
   * the key table again. Returns the renumbering as {@link #compact} does. Unless
   * {@code inPlace}, the run numbers are rewritten in a copy of the arena, published with the
   * records.
   */
  private int[] dropRetiredRuns(int retired, boolean inPlace) {
    int[] renumber = new int[runTop];
    Arrays.fill(renumber, -1);
    int kept = runTop - retired;
    long[] rs = new long[Math.max(MIN_RUNS, Math.max(kept, liveRuns + liveRuns / 4))
        * (1 + stride)];
    long[] a = inPlace ? arena : Arrays.copyOf(arena, arena.length);
    if (inPlace) {
      rewrites.beginWrite();
    }
    int nr = 0;
    for (int b = 0; b < blockTop; ) {
      int r = runOf(b);
      int e = end(r);
      renumber[r] = nr;
      int at = nr * (1 + stride);
      System.arraycopy(runs, rec(r), rs, at, 1 + stride);
      for (int i = b; i < e; i++) {
        a[2 * i + 1] = nr;
      }
      nr++;
      b = e;
    }
    compactions++;
    arena = a;
    runs = rs;
    runTop = nr;
    publish();
    if (inPlace) {
      rewrites.endWrite();
      compactionsInPlace++;
    }
    return renumber;
  }

  /** Compactions so far. */
  int compactions() {
    return compactions;
  }

  /** Compactions so far that rewrote published arrays in place (see {@link #rewrites()}). */
  int compactionsInPlace() {
    return compactionsInPlace;
  }

  /** Dead blocks or retired runs below which no compaction is done. */
  int minGarbage() {
    return minGarbage;
  }

  /** Bytes held by the arrays, from their actual lengths (headers not included). */
  long arrayBytes() {
    return 8L * (arena.length + table.length + runs.length);
  }

  // ---------------------------------------------------------------------------------- private

  private void setBounds(int r, int start, int end) {
    LONGS.setRelease(runs, rec(r), ((long) start << 32) | end);
  }

  private int newRun(int start, int end) {
    if (rec(runTop + 1) > runs.length) {
      int n = runTop + Math.max(MIN_RUNS, runTop / 4);
      runs = Arrays.copyOf(runs, n * (1 + stride));
      publish();
    }
    int r = runTop++;
    runs[rec(r)] = ((long) start << 32) | end;
    return r;
  }

  private void widen(int newStride) {
    int capacity = runs.length / (1 + stride);
    long[] rs = new long[capacity * (1 + newStride)];
    for (int r = 0; r < runTop; r++) {
      System.arraycopy(runs, r * (1 + stride), rs, r * (1 + newStride), 1 + stride);
    }
    runs = rs;
    stride = newStride;
    publish();
  }

  private void rehash(int length) {
    table = KeyTable.rebuilt(table, length);
    publish();
  }
}
