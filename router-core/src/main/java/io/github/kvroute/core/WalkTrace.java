package io.github.kvroute.core;

import io.github.kvroute.api.PromptKey;
import java.util.Arrays;

/**
 * Where a walk of the prefix index found a prompt's leading blocks in the arena: the stretches of
 * the prompt stored side by side, and the compaction count of the arrays it walked. The routed
 * insert that follows the walk on the same thread starts from them instead of finding and
 * comparing the same keys again ({@link KeyGroups#resolve(long[], int, WalkTrace, int)}).
 *
 * <p><b>Design notes.</b> An arena position changes only when a compaction moves the blocks; an
 * append adds positions and a block whose holders all left keeps its position until then. So the
 * positions a walk compared stay true until the table's next compaction, and an insert applied
 * while the compaction count is the walk's can use them. Each arena array the walk read carries the
 * count it was published with ({@link RunTable.View#layout}); a walk that moved to arrays of another
 * count leaves no trace. A trace holds at most {@value #MAX_STRETCHES} stretches, so its arrays are
 * bounded whatever the prompt; past them it records nothing, and the insert resolves the rest.
 *
 * <p>Thread-safety: not thread-safe; one routing thread's scratch ({@link DecisionContext}), read
 * by an insert only while that thread applies it (an insert lent to the index's buffer drops it).
 */
final class WalkTrace {
  /** Stretches recorded at most. */
  static final int MAX_STRETCHES = 1_024;

  /** The prompt walked, or null when the trace says nothing. */
  private PromptKey prompt;
  private int layout;
  /** Per stretch: the index of its first prompt block, and that block's arena position. */
  private int[] from = new int[16];
  private int[] at = new int[16];
  private int stretches;
  /** The leading prompt blocks whose positions the stretches give. */
  private int verified;
  /** Set once a stretch did not fit: the blocks from the first one left out are not traced. */
  private int cappedAt;

  /** Starts the trace of a walk of {@code walked} over arrays of compaction count {@code layout}. */
  void begin(PromptKey walked, int layout) {
    this.prompt = walked;
    this.layout = layout;
    this.stretches = 0;
    this.verified = 0;
    this.cappedAt = Integer.MAX_VALUE;
  }

  /** Says nothing (no walk, or one over arrays of several compaction counts). */
  void clear() {
    prompt = null;
    stretches = 0;
    verified = 0;
  }

  /**
   * Prompt block {@code i} is at arena position {@code b}, the blocks before it found already: a
   * new stretch unless it continues the last one in the arena.
   */
  void found(int i, int b) {
    if (prompt == null || i >= cappedAt) {
      return;
    }
    int last = stretches - 1;
    if (last >= 0 && b == at[last] + (i - from[last])) {
      return;
    }
    if (stretches == from.length) {
      if (stretches == MAX_STRETCHES) {
        cappedAt = i;
        return;
      }
      from = Arrays.copyOf(from, Math.min(MAX_STRETCHES, stretches * 2));
      at = Arrays.copyOf(at, from.length);
    }
    from[stretches] = i;
    at[stretches] = b;
    stretches++;
  }

  /** The walk ended with its first {@code blocks} blocks found, in stretches it recorded. */
  void end(int blocks) {
    if (prompt != null) {
      verified = Math.min(blocks, cappedAt);
    }
  }

  /**
   * The leading blocks of {@code p}, at most {@code count}, whose positions this trace gives in
   * arrays of compaction count {@code currentLayout}; 0 when it says nothing of them.
   */
  int usable(PromptKey p, int currentLayout, int count) {
    return prompt == p && layout == currentLayout ? Math.min(verified, count) : 0;
  }

  int stretches() {
    return stretches;
  }

  int from(int k) {
    return from[k];
  }

  int at(int k) {
    return at[k];
  }
}
