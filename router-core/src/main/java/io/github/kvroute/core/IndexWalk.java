package io.github.kvroute.core;

import io.github.kvroute.api.PromptKey;
import java.util.Arrays;

/**
 * One lock-free walk of a prompt through the {@link RunTable}: the per-slot leading-match lengths.
 *
 * <h2>Design notes</h2>
 * The walk takes the table's published view once, probes the key table for the prompt's first
 * block, and then moves a run at a time: intersect the still-matching candidates with the run's
 * holder words, compare the prompt's next keys with the arena's along the run, and at the run's end
 * either continue into the next run (its first key is the prompt's next: one comparison) or probe.
 * Its cost grows with the runs it crosses and the blocks it matches, never with a probe per block.
 *
 * <p>Results are written when a candidate drops out. A candidate word whose 64 slots are all still
 * matching is filled at once when any of them drops (the survivors are written again later): most
 * of a large fleet typically drops at the same run, and one vectorised fill costs less than a store
 * per slot.
 *
 * <p>The walk loads the key-table position of the prompt's second block before probing for its
 * first: past a shared first block (a system prompt) the second is typically in a run of its own,
 * found by a probe, and that probe's cache miss then overlaps the first one instead of following it.
 *
 * <p>A block whose run number is newer than the view's run records (the writer grew them since) is
 * looked up again in the current view, at most twice, so a walk that races a growth still finishes
 * on consistent arrays.
 *
 * <p>A compaction may rewrite the arena and the key table in place ({@link RunTable#rewrites()}); a
 * walk that overlapped one could have misread them, so it walks again, at most {@value #RETRIES}
 * times; {@link #match} says whether its last walk overlapped none, and the caller walks under the
 * writer's lock when it did not.
 *
 * <p>Thread-safety: stateless; {@link #match} is safe from any thread, concurrently with the writer.
 */
final class IndexWalk {
  /** Walks again after one that overlapped a compaction in place, at most. */
  static final int RETRIES = 2;

  private IndexWalk() {}

  /**
   * For every slot set in {@code candidates}, writes to {@code matchedOut[slot]} the number of leading
   * blocks of {@code prompt} that slot holds. {@code alive} is scratch of at least the mask's length.
   * Returns false when every walk overlapped a compaction in place: the lengths may then be wrong,
   * and the caller walks again with the writer held off ({@link #walk}).
   */
  static boolean match(RunTable table, PromptKey prompt, long[] candidates, int maskWords,
      long[] alive, int[] matchedOut) {
    return match(table, prompt, candidates, maskWords, alive, matchedOut, null);
  }

  /**
   * {@link #match(RunTable, PromptKey, long[], int, long[], int[])}, recording in {@code trace} (if
   * not null) where the last walk found the prompt's leading blocks.
   */
  static boolean match(RunTable table, PromptKey prompt, long[] candidates, int maskWords,
      long[] alive, int[] matchedOut, WalkTrace trace) {
    SeqLock rewrites = table.rewrites();
    for (int attempt = 0; attempt <= RETRIES; attempt++) {
      long version = rewrites.beginRead();
      if ((version & 1) == 0) {
        walk(table, prompt, candidates, maskWords, alive, matchedOut, trace);
        if (rewrites.unchanged(version)) {
          return true;
        }
      }
      Thread.onSpinWait();
    }
    return false;
  }

  /**
   * One walk, exact unless a compaction rewrites the arrays in place meanwhile (see {@link #match});
   * writes every candidate's result, so a walk again overwrites them all.
   */
  static void walk(RunTable table, PromptKey prompt, long[] candidates, int maskWords,
      long[] alive, int[] matchedOut, WalkTrace trace) {
    System.arraycopy(candidates, 0, alive, 0, maskWords);
    int n = prompt.blockCount();
    int i = 0;
    boolean any = false;
    for (int w = 0; w < maskWords; w++) {
      any |= alive[w] != 0;
    }
    RunTable.View view = table.view();
    if (trace != null) {
      trace.begin(prompt, view.layout);
    }
    // a prompt's second block is often where a probe is next needed (past a shared first block, a
    // run of its own): its table position is loaded now, so that miss overlaps the first probe's
    long touched = any && n > 1 ? view.touch(prompt.blockHash(1)) : 0;
    int b = any && n > 0 ? view.find(prompt.blockHash(0)) : -1;
    if (touched == 1) {
      // never acted on (an entry of position 0 with fingerprint 0): only keeps the load, which a
      // predicted branch does not wait for
      Thread.onSpinWait();
    }
    int refreshes = 0;
    // one iteration per run crossed: intersect with its holders, then compare keys along it
    while (b >= 0) {
      int run = view.record(b);
      if (run < 0) {
        // the block's run is newer than these arrays: look the block up again in the current ones
        if (++refreshes > 2) {
          break;
        }
        int layout = view.layout;
        view = table.view();
        if (trace != null && view.layout != layout) {
          // positions found in arrays of another compaction may have moved since
          trace.clear();
        }
        b = view.find(prompt.blockHash(i));
        continue;
      }
      if (trace != null) {
        trace.found(i, b);
      }
      any = false;
      for (int w = 0; w < maskWords; w++) {
        long a = alive[w];
        if (a == 0) {
          continue;
        }
        long held = a & view.word(run, w);
        long dropped = a & ~held;
        if (a == -1L && dropped != 0) {
          // all 64 are candidates: one vectorised fill, the survivors are written again later
          Arrays.fill(matchedOut, w << 6, (w << 6) + 64, i);
        } else {
          while (dropped != 0) {
            matchedOut[(w << 6) + Long.numberOfTrailingZeros(dropped)] = i;
            dropped &= dropped - 1;
          }
        }
        alive[w] = held;
        any |= held != 0;
      }
      if (!any) {
        break;
      }
      int end = view.end(run);
      i++;
      b++;
      long[] arena = view.arena;
      // plain loads: a stale key only fails the comparison, which then takes the probe
      while (i < n && b < end && arena[2 * b] == prompt.blockHash(i)) {
        i++;
        b++;
      }
      if (i >= n) {
        break;
      }
      long next = prompt.blockHash(i);
      // the next block is often the next run's first (a run split where holders diverge); key 0
      // also marks the arena's unused tail, so it always takes the probe
      if (b >= end && b < view.blocks && next != 0 && view.keyAt(b) == next) {
        continue;
      }
      b = view.find(next);
    }
    for (int w = 0; w < maskWords; w++) {
      long a = alive[w];
      while (a != 0) {
        matchedOut[(w << 6) + Long.numberOfTrailingZeros(a)] = i;
        a &= a - 1;
      }
    }
    if (trace != null) {
      trace.end(i);
    }
  }
}
