package io.github.kvroute.core;

import io.github.kvroute.api.PromptKey;
import java.util.concurrent.Executor;

/**
 * Direct access to the router's prefix index without a {@link Router} around it, for benchmarks and
 * diagnostics (the JMH benchmarks in {@code router-benchmarks} measure the index walk through it).
 * Not a supported API: it exposes the index's current shape and changes with it, in any release.
 *
 * <p>Replicas are numbered {@code 0..replicas-1} in the order the probe allocated their slots.
 *
 * <p>Thread-safety: not thread-safe; one thread loads the index, then any one thread matches.
 */
public final class PrefixIndexProbe {
  private final PrefixIndex index;
  private final int[] slots;
  private final int[] gens;
  private final long[] candidates;
  private final long[] alive;
  private final int[] matched;

  /**
   * An index of {@code budgetBytes} with {@code replicas} replicas whose caches are unbounded (only
   * the budget evicts).
   *
   * @param budgetBytes the index's memory budget, in bytes
   * @param replicas the number of replicas; {@code >= 1}
   * @throws IllegalArgumentException if the budget is below the index's minimum or
   *     {@code replicas < 1}
   */
  public PrefixIndexProbe(long budgetBytes, int replicas) {
    this(budgetBytes, replicas, null);
  }

  /**
   * As above, with the index's compactions run on {@code compactionExecutor} apart from the writes
   * that call for them, or inside those writes if it is null (see
   * {@code Router.Builder#indexCompactionExecutor}).
   *
   * @param budgetBytes the index's memory budget, in bytes
   * @param replicas the number of replicas; {@code >= 1}
   * @param compactionExecutor where compactions run, or null for inside the writes
   * @throws IllegalArgumentException if the budget is below the index's minimum or
   *     {@code replicas < 1}
   */
  public PrefixIndexProbe(long budgetBytes, int replicas, Executor compactionExecutor) {
    if (replicas < 1) {
      throw new IllegalArgumentException("replicas: " + replicas + " (expected: >= 1)");
    }
    index = new PrefixIndex(budgetBytes, Long.MAX_VALUE / 4, 1 << 20, RunTable.MIN_GARBAGE,
        compactionExecutor);
    slots = new int[replicas];
    gens = new int[replicas];
    for (int r = 0; r < replicas; r++) {
      int[] slotAndGen = index.allocateSlot();
      slots[r] = slotAndGen[0];
      gens[r] = slotAndGen[1];
    }
    int words = index.words();
    candidates = new long[words];
    alive = new long[words];
    for (int slot : slots) {
      candidates[slot >>> 6] |= 1L << slot;
    }
    matched = new int[words << 6];
  }

  /**
   * Records that {@code replica} holds every block of {@code prompt} (as a KV "stored" event).
   *
   * @param replica the replica's number, in {@code [0, replicas)}
   * @param prompt the prompt whose blocks it holds
   */
  public void stored(int replica, PromptKey prompt) {
    index.kvStored(slots[replica], gens[replica], prompt.blockHashes());
  }

  /**
   * Records that {@code prompt} was routed to {@code replica}, as the router's optimistic insert
   * after a decision: applied at once when the index's write lock is free, else buffered (never
   * waiting for the lock), or dropped when the buffer is full.
   *
   * @param replica the replica's number, in {@code [0, replicas)}
   * @param prompt the prompt routed there
   * @return false if the index dropped it
   */
  public boolean routed(int replica, PromptKey prompt) {
    return index.insertRouted(slots[replica], gens[replica], prompt, 0) != null;
  }

  /**
   * Optimistic inserts the index dropped because its write buffer was full.
   *
   * @return the count so far
   */
  public long droppedHints() {
    return index.droppedHints();
  }

  /** Applies every buffered write, as a router does before it reads. */
  public void flush() {
    index.flush();
  }

  /**
   * One index walk over every replica: the number of leading blocks of {@code prompt} each replica
   * holds, indexed by slot. The array is reused by the next call.
   *
   * @param prompt the prompt matched
   * @return leading blocks held, by slot (see {@link #slot}); overwritten by the next call
   */
  public int[] match(PromptKey prompt) {
    index.match(prompt, candidates, candidates.length, alive, matched);
    return matched;
  }

  /** {@return (replica, block) entries the index holds, after applying buffered writes} */
  public long entries() {
    index.flush();
    return index.entryCount();
  }

  /** {@return distinct blocks with at least one holder, after applying buffered writes} */
  public long blocks() {
    index.flush();
    return index.blockCount();
  }

  /**
   * {@return the bytes the index's budget is enforced against (its accounting), after applying
   *     buffered writes}
   */
  public long estimatedBytes() {
    index.flush();
    return index.estimatedBytes();
  }

  /** {@return compactions of the index's arrays so far, after applying buffered writes} */
  public int compactions() {
    index.flush();
    return index.compactions();
  }

  /**
   * Compactions so far that rewrote the index's published arrays in place: all of those run
   * inside the writes that called for them (those run on an executor use new arrays).
   *
   * @return the count so far
   */
  public int compactionsInPlace() {
    return index.compactionsInPlace();
  }

  /** {@return bytes the index's arrays hold, from their actual lengths (headers not included)} */
  public long footprintBytes() {
    return index.footprintBytes();
  }

  /**
   * The slot of replica number {@code replica}, to read {@link #match}'s result.
   *
   * @param replica the replica's number, in {@code [0, replicas)}
   * @return its index slot
   */
  public int slot(int replica) {
    return slots[replica];
  }
}
