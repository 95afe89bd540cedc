package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import io.github.kvroute.api.PromptKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/**
 * Compactions handed to an executor ({@link PrefixIndex}, "Compactions"): the write that calls for
 * one returns without it, one task at a time is handed over, the task compacts into new arrays,
 * the arrays stay within the accounting whatever the executor does, and an executor that refuses
 * loses nothing.
 */
class CompactionHandOverTest {
  private static final int PROMPT_BLOCKS = 64;
  private static final int LIVE_PROMPTS = 40;

  /** Unique prompts stored on one slot, the one {@link #LIVE_PROMPTS} steps older removed. */
  private static final class Churn {
    final PrefixIndex ix;
    final int[] slot;
    final PromptKey[] live = new PromptKey[LIVE_PROMPTS];
    int step;

    Churn(Executor executor) {
      // a small garbage floor: a compaction every few dozen writes
      ix = new PrefixIndex(1L << 30, 1 << 20, 1 << 16, 16, executor);
      slot = ix.allocateSlot();
    }

    /** One write: a store, or (every other step) the removal of the oldest live prompt. */
    void write() {
      step++;
      int at = (step / 2) % LIVE_PROMPTS;
      if (step % 2 == 1 || live[at] == null) {
        PromptKey fresh = prompt(1L + (long) step * PROMPT_BLOCKS);
        if (live[at] != null) {
          ix.kvRemoved(slot[0], slot[1], live[at].blockHashes());
        }
        live[at] = fresh;
        ix.kvStored(slot[0], slot[1], fresh.blockHashes());
      } else {
        // a routed insert of a live prompt: a hint, applied at once on this thread
        PromptKey p = live[(at + 1) % LIVE_PROMPTS];
        if (p != null) {
          ix.insertRouted(slot[0], slot[1], p, p.blockCount());
        }
      }
    }

    /** Every live prompt matches whole. */
    void assertLivePromptsMatch() {
      for (PromptKey p : live) {
        if (p != null) {
          assertThat(RunIndexModelProperties.match(ix, p, slot[0])).isEqualTo(PROMPT_BLOCKS);
        }
      }
    }
  }

  private static PromptKey prompt(long firstId) {
    long[] ids = new long[PROMPT_BLOCKS];
    for (int i = 0; i < PROMPT_BLOCKS; i++) {
      ids[i] = firstId + i;
    }
    return PromptKey.ofBlockHashes(ids, 1, PROMPT_BLOCKS, IndexHarness.NS);
  }

  @Test
  void theWriteThatCallsForACompactionHandsItOverAndTheTaskCompactsIntoNewArrays()
      throws Exception {
    List<Runnable> held = new ArrayList<>();
    Churn churn = new Churn(held::add);
    while (held.isEmpty()) {
      churn.write();
    }
    assertThat(churn.ix.compactionDue()).isTrue();
    assertThat(churn.ix.compactions()).isZero();
    // more writes while it waits: no second task, and nothing lost
    for (int i = 0; i < 5; i++) {
      churn.write();
    }
    assertThat(held).hasSize(1);
    churn.assertLivePromptsMatch();

    Thread compactor = new Thread(held.get(0));
    compactor.start();
    compactor.join();

    assertThat(churn.ix.compactions()).isPositive();
    assertThat(churn.ix.compactionsInPlace()).isZero();
    assertThat(churn.ix.compactionDue()).isFalse();
    churn.assertLivePromptsMatch();
    // the next one due is handed over again
    held.clear();
    while (held.isEmpty()) {
      churn.write();
    }
    assertThat(churn.ix.compactionDue()).isTrue();
  }

  @Test
  void whileATaskWaitsAWriteThatWouldPassTheAccountingCompactsAtOnce() {
    List<Runnable> held = new ArrayList<>();
    Churn churn = new Churn(held::add);
    for (int i = 0; i < 3_000; i++) {
      churn.write();
      assertThat(churn.ix.footprintBytes()).as("arrays after write %d", i)
          .isLessThanOrEqualTo(churn.ix.estimatedBytes());
    }
    // the task never ran, yet the garbage was compacted (in place, on the writing thread)
    assertThat(held).hasSize(1);
    assertThat(churn.ix.compactions()).isPositive();
    assertThat(churn.ix.compactionsInPlace()).isPositive();
    churn.assertLivePromptsMatch();
  }

  @Test
  void anExecutorThatRefusesGetsTheCompactionDoneOnTheWritingThread() {
    Churn churn = new Churn(task -> {
      throw new RejectedExecutionException("shut down");
    });
    for (int i = 0; i < 600; i++) {
      churn.write();
      assertThat(churn.ix.compactionDue()).as("due after write %d", i).isFalse();
    }
    assertThat(churn.ix.compactionsRefused()).isPositive();
    assertThat(churn.ix.compactions()).isEqualTo((int) churn.ix.compactionsRefused());
    churn.assertLivePromptsMatch();
  }

  @Test
  void runnableRunCompactsInPlaceInsideTheWrite() {
    Churn churn = new Churn(Runnable::run);
    for (int i = 0; i < 600; i++) {
      churn.write();
      assertThat(churn.ix.compactionDue()).as("due after write %d", i).isFalse();
    }
    assertThat(churn.ix.compactions()).isPositive();
    assertThat(churn.ix.compactionsInPlace()).isPositive();
    assertThat(churn.ix.compactionsRefused()).isZero();
    churn.assertLivePromptsMatch();
  }

  @Test
  void theRouterBuilderRejectsANullExecutor() {
    assertThatNullPointerException()
        .isThrownBy(() -> Router.newBuilder().indexCompactionExecutor(null))
        .withMessageContaining("indexCompactionExecutor: null (expected: an executor");
  }
}
