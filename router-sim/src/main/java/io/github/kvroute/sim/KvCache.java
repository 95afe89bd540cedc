package io.github.kvroute.sim;

import io.github.kvroute.api.PromptKey;

/**
 * One replica's paged KV cache with prefix caching, in blocks of {@code blockSizeTokens}.
 *
 * <h2>Design notes</h2>
 * Every block is in exactly one of three states, and {@code free + private + cached == total} always:
 * <ul>
 *   <li><b>free</b>;
 *   <li><b>private</b> to one running sequence: a prompt block still being prefilled, a partial or
 *       unhashed block, a generated-token block;
 *   <li><b>cached</b> under its block hash in the {@link BlockRegistry}: pinned ({@code refs > 0}) by
 *       the running sequences using it, or unpinned and linked into this replica's LRU list.
 * </ul>
 * Admission (vLLM's scheduler): the hit is the leading run of the prompt's block hashes cached here;
 * the engine always computes the last prompt token, so cached tokens are
 * {@code min(hits x blockSize, prompt - 1)}. The hits are pinned and the rest of the prompt gets
 * private blocks, evicting least recently used unpinned blocks as needed; admission fails if that
 * would leave fewer than the watermark free. When a prefill completes, its prompt's hashed blocks are
 * registered (a block another sequence registered meanwhile is shared instead and the private copy
 * freed). On release, pinned blocks are unpinned deepest-first, so a prompt's tail is evicted before
 * its root, as vLLM's free-block queue does; private blocks are freed.
 *
 * <p>The prefix walks (the hit walk at enqueue and at admission) find block {@code i + 1} through
 * {@link CachedBlock#succ} of block {@code i} when that memo still names a cached block of this
 * replica with the sought hash, which is exactly what the registry would answer (a replica holds a
 * hash at most once), and probe the registry otherwise, recording the answer in the memo. Registering
 * a prompt's blocks links each to the next. Every cached block holds at most one such reference, to a
 * cached block or to a dropped one that holds none, so the memos keep at most as many dropped blocks
 * alive as there are cached ones: bounded by the KV capacity, like the registry.
 *
 * <p>A prefill's blocks are reserved in the registry when it starts ({@link #startPrefill}), by the
 * probes that count what another replica holds, and become cached from their reservations when it
 * completes ({@link #register}), without probing again; a released sequence drops what it still has
 * reserved. Reserved blocks are counted as private until then, and no lookup sees them, so
 * admission, the hit walks and the counts are what registering the blocks afresh would give.
 *
 * <p>The walks that look up many blocks in a row (the recomputed-elsewhere count, registering a
 * prefill's blocks, evicting for an allocation) first load the registry positions of the next
 * {@value #LOOKAHEAD} blocks in a loop of independent loads, so their cache misses overlap instead
 * of coming one per lookup; the lookups that follow are the same ones, in the same order. Releasing
 * a sequence loads its next blocks to unpin the same way.
 *
 * <p>Not thread-safe: owned by its replica's engine.
 */
final class KvCache {
  private final int replica;
  private final BlockRegistry registry;
  private final int blockSize;
  private final int totalBlocks;
  private final int watermarkBlocks;
  private final KvLog log;
  /** The second answer of the registry's reserve, settle and getOrAdd. */
  private final boolean[] answer = new boolean[1];
  /** Blocks whose registry positions a walk loads at once, ahead of looking them up one by one. */
  static final int LOOKAHEAD = 16;
  /** Where the walks keep what their look-ahead loads return, so that the loads are done. */
  private long touched;

  private int free;
  private int cached;
  private int evictable;
  private int privateBlocks;
  private long evictions;
  private long epoch;
  /** LRU list of unpinned cached blocks: head is the least recently used. */
  private CachedBlock head;
  private CachedBlock tail;

  KvCache(int replica, BlockRegistry registry, int blockSize, long capacityTokens, double watermark,
      KvLog log) {
    this.replica = replica;
    this.registry = registry;
    this.blockSize = blockSize;
    long blocks = capacityTokens / blockSize;
    if (blocks < 1 || blocks > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("kvCapacityTokens: " + capacityTokens
          + " (expected: between 1 and 2^31 - 1 blocks of " + blockSize + " tokens)");
    }
    this.totalBlocks = (int) blocks;
    this.watermarkBlocks = (int) Math.floor(totalBlocks * watermark);
    this.log = log;
    this.free = totalBlocks;
  }

  static int blocksFor(long tokens, int blockSize) {
    return (int) ((tokens + blockSize - 1) / blockSize);
  }

  void epoch(long epoch) {
    this.epoch = epoch;
  }

  /** Whether a request of this size could ever run here, alone on an empty cache. */
  boolean fits(long promptTokens, long outputTokens) {
    return blocksFor(promptTokens + outputTokens, blockSize) <= totalBlocks - watermarkBlocks;
  }

  /** Leading blocks of {@code prompt} cached here. */
  int leadingHits(PromptKey prompt) {
    int n = prompt.blockCount();
    int h = 0;
    CachedBlock prev = null;
    while (h < n) {
      CachedBlock b = lookupAfter(prev, prompt.blockHash(h));
      if (b == null) {
        break;
      }
      prev = b;
      h++;
    }
    return h;
  }

  /**
   * This replica's cached copy of {@code hash}, the block after {@code prev} (null for a prompt's
   * first block) in the prompt being walked: {@code prev}'s memo if it still answers, else the
   * registry's answer, then memoized.
   */
  private CachedBlock lookupAfter(CachedBlock prev, long hash) {
    if (prev == null) {
      return registry.lookup(hash, replica);
    }
    CachedBlock s = prev.succ;
    if (s != null && s.hash == hash && !s.dropped) {
      return s;
    }
    CachedBlock b = registry.lookup(hash, replica);
    if (b != null) {
      prev.succ = b;
    }
    return b;
  }

  /** Tokens of a prompt a prefill would reuse with {@code hits} leading blocks cached. */
  int cachedTokens(int hits, int promptTokens, int tokensToHold) {
    long reusable = Math.min((long) hits * blockSize, promptTokens);
    return (int) Math.min(reusable, tokensToHold - 1L);
  }

  /**
   * Admits {@code s} if its blocks fit: pins its leading hits, allocates private blocks for the rest of
   * {@link Sequence#tokensToHold()}. Returns the number of hit blocks, or -1 (nothing changed) when it
   * does not fit.
   */
  int admit(Sequence s) {
    PromptKey prompt = s.prompt;
    int n = prompt.blockCount();
    if (s.pins == null || s.pins.length < n) {
      s.pins = new CachedBlock[n];
    }
    CachedBlock[] pins = s.pins;
    int hits = 0;
    int unpinnedHits = 0;
    CachedBlock prev = null;
    while (hits < n) {
      CachedBlock b = lookupAfter(prev, prompt.blockHash(hits));
      if (b == null) {
        break;
      }
      prev = b;
      pins[hits++] = b;
      if (b.refs == 0) {
        unpinnedHits++;
      }
    }
    int newBlocks = Math.max(0, blocksFor(s.tokensToHold(), blockSize) - hits);
    if (newBlocks > free + evictable - unpinnedHits - watermarkBlocks) {
      java.util.Arrays.fill(pins, 0, hits, null);
      return -1;
    }
    for (int i = 0; i < hits; i++) {
      pin(pins[i]);
    }
    s.pinnedCount = hits;
    allocate(newBlocks);
    s.privateBlocks = newBlocks;
    return hits;
  }

  /** One more private block for a growing sequence; false when none can be freed. */
  boolean grow(Sequence s) {
    if (free == 0 && evictable == 0) {
      return false;
    }
    allocate(1);
    s.privateBlocks++;
    return true;
  }

  /**
   * The prefill of admitted {@code s} starts, reusing its first {@code cached} tokens: reserves the
   * blocks it will cache ({@link BlockRegistry#reserve}) and returns the tokens of its prompt beyond
   * the first {@code cached} that lie in blocks another replica holds right now: what the prefill
   * recomputes although it is cached elsewhere. One probe of the registry per block for both.
   */
  long startPrefill(Sequence s, int cached) {
    PromptKey prompt = s.prompt;
    long sum = 0;
    int promptTokens = prompt.tokenCount();
    int n = prompt.blockCount();
    int first = cached / blockSize;
    // a pass whose KV arrived by transfer reuses it all and computes, so registers, nothing
    int reserveFrom = first <= s.pinnedCount ? s.pinnedCount : n;
    for (int i = first, touchedTo = 0; i < n; i++) {
      if (i >= touchedTo) {
        touchedTo = Math.min(n, i + LOOKAHEAD);
        touched += registry.touch(prompt, i, touchedTo);
      }
      boolean elsewhere;
      if (i >= reserveFrom) {
        s.pins[i] = registry.reserve(prompt.blockHash(i), replica, answer);
        elsewhere = answer[0];
      } else {
        elsewhere = registry.heldElsewhere(prompt.blockHash(i), replica);
      }
      long lo = Math.max((long) i * blockSize, cached);
      long hi = Math.min((long) (i + 1) * blockSize, promptTokens);
      if (hi > lo && elsewhere) {
        sum += hi - lo;
      }
    }
    s.reservedTo = reserveFrom < n ? n : s.pinnedCount;
    return sum;
  }

  /** The prefill of {@code s} completed: its prompt's hashed blocks become cached. */
  void register(Sequence s) {
    PromptKey prompt = s.prompt;
    int n = prompt.blockCount();
    for (int i = s.pinnedCount, touchedTo = s.reservedTo; i < n; i++) {
      if (i >= touchedTo) {
        touchedTo = Math.min(n, i + LOOKAHEAD);
        touched += registry.touch(prompt, i, touchedTo);
      }
      long hash = prompt.blockHash(i);
      CachedBlock b = i < s.reservedTo
          ? registry.settle(s.pins[i], answer) : registry.getOrAdd(hash, replica, answer);
      if (!answer[0]) {
        pin(b);
        free++;
      } else {
        b.refs = 1;
        cached++;
        if (log != null) {
          log.stored(hash, epoch);
        }
      }
      privateBlocks--;
      s.privateBlocks--;
      s.pins[i] = b;
      if (i > 0) {
        s.pins[i - 1].succ = b;
      }
    }
    s.pinnedCount = n;
    s.reservedTo = 0;
  }

  /** Takes {@code s}'s blocks back: cached ones unpinned deepest-first, private ones freed. */
  void release(Sequence s) {
    CachedBlock[] pins = s.pins;
    for (int i = s.pinnedCount - 1, touchedTo = i + 1; i >= 0; i--) {
      if (i < touchedTo) {
        // the next blocks to unpin, their misses overlapped
        touchedTo = Math.max(0, i + 1 - LOOKAHEAD);
        for (int j = i; j >= touchedTo; j--) {
          touched += pins[j].refs;
        }
      }
      unpin(pins[i]);
      pins[i] = null;
    }
    // an unfinished prefill's reservations: their blocks were private, counted below
    for (int i = s.pinnedCount; i < s.reservedTo; i++) {
      registry.remove(pins[i]);
      pins[i] = null;
    }
    s.reservedTo = 0;
    s.pinnedCount = 0;
    free += s.privateBlocks;
    privateBlocks -= s.privateBlocks;
    s.privateBlocks = 0;
  }

  /** Drops every cached block (a restart); every sequence must have been released. */
  void clear() {
    if (evictable != cached || privateBlocks != 0) {
      throw new IllegalStateException("replica " + replica + ": clear with " + (cached - evictable)
          + " pinned and " + privateBlocks + " private blocks");
    }
    while (head != null) {
      CachedBlock b = head;
      unlink(b);
      registry.remove(b);
    }
    free = totalBlocks;
    cached = 0;
    evictable = 0;
  }

  private void pin(CachedBlock b) {
    if (b.refs++ == 0) {
      unlink(b);
      evictable--;
    }
  }

  private void unpin(CachedBlock b) {
    if (b.refs <= 0) {
      throw new IllegalStateException("block " + b.hash() + " unpinned more often than pinned");
    }
    if (--b.refs == 0) {
      b.prev = tail;
      b.next = null;
      if (tail != null) {
        tail.next = b;
      } else {
        head = b;
      }
      tail = b;
      evictable++;
    }
  }

  private void allocate(int blocks) {
    while (free < blocks) {
      // the next victims' registry positions first, their misses overlapped
      int k = 0;
      for (CachedBlock b = head; b != null && k < Math.min(blocks - free, LOOKAHEAD); b = b.next) {
        touched += registry.touch(b.hash);
        k++;
      }
      do {
        evictLeastRecent();
      } while (--k > 0);
    }
    free -= blocks;
    privateBlocks += blocks;
  }

  private void evictLeastRecent() {
    CachedBlock b = head;
    if (b == null) {
      throw new IllegalStateException("replica " + replica + ": no evictable block");
    }
    unlink(b);
    evictable--;
    cached--;
    free++;
    evictions++;
    registry.remove(b);
    if (log != null) {
      log.removed(b.hash(), epoch);
    }
  }

  private void unlink(CachedBlock b) {
    if (b.prev != null) {
      b.prev.next = b.next;
    } else {
      head = b.next;
    }
    if (b.next != null) {
      b.next.prev = b.prev;
    } else {
      tail = b.prev;
    }
    b.prev = null;
    b.next = null;
  }

  int totalBlocks() {
    return totalBlocks;
  }

  int freeBlocks() {
    return free;
  }

  int cachedBlocks() {
    return cached;
  }

  int evictableBlocks() {
    return evictable;
  }

  int privateBlocks() {
    return privateBlocks;
  }

  /** Blocks in use by running sequences (vLLM's KV usage: pinned cached plus private). */
  int usedBlocks() {
    return totalBlocks - free - evictable;
  }

  long evictions() {
    return evictions;
  }

  int blockSize() {
    return blockSize;
  }
}
