package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.PromptKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Readers matching through {@link PrefixIndex#match} while the writer churns unique prompts on
 * another slot, so that the run table compacts, mostly in place, under the readers' feet. The
 * watched slot holds one prompt throughout and toggles another between whole and half; every match
 * a reader gets must be one the model allowed at some moment of its call (the state before the
 * commands that overlapped it, or after one of them), and the churned slot must never match the
 * watched prompts. A walk that misread an array being rewritten and went unnoticed would match the
 * pinned prompt short (its keys moved or its table entries emptied), which this catches.
 */
class CompactionInPlaceRaceTest {
  private static final int PINNED_BLOCKS = 48;
  private static final int TOGGLED_BLOCKS = 40;
  private static final int TOGGLED_KEPT = 20;
  private static final int CHURN_PROMPT_BLOCKS = 64;
  private static final int CHURN_LIVE_PROMPTS = 40;
  private static final int COMMANDS = 6_000;
  private static final int READERS = 2;

  private static PromptKey prompt(long firstId, int blocks) {
    long[] ids = new long[blocks];
    for (int i = 0; i < blocks; i++) {
      ids[i] = firstId + i;
    }
    return PromptKey.ofBlockHashes(ids, 1, blocks, IndexHarness.NS);
  }

  private static long[] keys(PromptKey p, int from, int to) {
    long[] k = new long[to - from];
    for (int i = from; i < to; i++) {
      k[i - from] = p.blockHash(i);
    }
    return k;
  }

  @Test
  void readersRacingCompactionsInPlaceOnlyGetMatchesTheModelAllowed() throws Exception {
    // a small garbage floor: a compaction every few commands, rather than every few hundred
    PrefixIndex ix = new PrefixIndex(1L << 30, 1 << 20, 1 << 16, 16);
    int[] watched = ix.allocateSlot();
    int[] churned = ix.allocateSlot();
    PromptKey pinned = prompt(1_000_000_000L, PINNED_BLOCKS);
    PromptKey toggled = prompt(2_000_000_000L, TOGGLED_BLOCKS);
    ix.kvStored(watched[0], watched[1], pinned.blockHashes());
    ix.kvStored(watched[0], watched[1], toggled.blockHashes());

    // the writer's plan, and the toggled prompt's match after each command (the model): unique
    // prompts stored and the oldest removed (about CHURN_LIVE_PROMPTS live), and every 25th step
    // the toggled prompt's second half removed or stored again
    List<Runnable> commands = new ArrayList<>();
    List<Integer> toggledAfter = new ArrayList<>(List.of(TOGGLED_BLOCKS));
    PromptKey[] live = new PromptKey[CHURN_LIVE_PROMPTS];
    for (int step = 1; commands.size() < COMMANDS; step++) {
      int toggledNow = toggledAfter.get(toggledAfter.size() - 1);
      if (step % 25 == 0) {
        if (toggledNow == TOGGLED_BLOCKS) {
          commands.add(() -> ix.kvRemoved(watched[0], watched[1],
              keys(toggled, TOGGLED_KEPT, TOGGLED_BLOCKS)));
          toggledAfter.add(TOGGLED_KEPT);
        } else {
          commands.add(() -> ix.kvStored(watched[0], watched[1], toggled.blockHashes()));
          toggledAfter.add(TOGGLED_BLOCKS);
        }
        continue;
      }
      PromptKey fresh = prompt(1L + (long) step * CHURN_PROMPT_BLOCKS, CHURN_PROMPT_BLOCKS);
      commands.add(() -> ix.kvStored(churned[0], churned[1], fresh.blockHashes()));
      toggledAfter.add(toggledNow);
      int at = step % CHURN_LIVE_PROMPTS;
      PromptKey gone = live[at];
      live[at] = fresh;
      if (gone != null) {
        commands.add(() -> ix.kvRemoved(churned[0], churned[1], gone.blockHashes()));
        toggledAfter.add(toggledNow);
      }
    }
    assertThat(toggledAfter).as("a state after each command, and the first")
        .hasSize(commands.size() + 1).contains(TOGGLED_KEPT);

    // odd while command (phase + 1) / 2 runs, even (2 x commands done) between commands
    java.util.concurrent.atomic.AtomicLong phase = new java.util.concurrent.atomic.AtomicLong();
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<String> badRead = new AtomicReference<>();
    java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(1 + READERS);
    try {
      List<Future<?>> readers = new ArrayList<>();
      for (int r = 0; r < READERS; r++) {
        readers.add(pool.submit(() -> {
          int words = ix.words();
          long[] mask = new long[words];
          mask[watched[0] >>> 6] |= 1L << watched[0];
          mask[churned[0] >>> 6] |= 1L << churned[0];
          long[] alive = new long[words];
          int[] out = new int[words << 6];
          while (!done.get() && badRead.get() == null) {
            long before = phase.get();
            ix.match(pinned, mask, words, alive, out);
            int pinnedWatched = out[watched[0]];
            int pinnedChurned = out[churned[0]];
            ix.match(toggled, mask, words, alive, out);
            long after = phase.get();
            // the states the calls could have seen: after the last command done at the start,
            // through after the last command started by the end
            int first = (int) (before / 2);
            int last = (int) Math.min((after + 1) / 2, commands.size());
            boolean allowed = false;
            for (int k = first; k <= last && !allowed; k++) {
              allowed = out[watched[0]] == toggledAfter.get(k);
            }
            if (pinnedWatched != PINNED_BLOCKS || pinnedChurned != 0 || out[churned[0]] != 0
                || !allowed) {
              badRead.compareAndSet(null, "pinned " + pinnedWatched + " (churned slot "
                  + pinnedChurned + "), toggled " + out[watched[0]] + " (churned slot "
                  + out[churned[0]] + ") between commands " + first + " and " + last);
            }
            reads.incrementAndGet();
          }
        }));
      }
      Future<?> writer = pool.submit(() -> {
        try {
          for (Runnable command : commands) {
            phase.incrementAndGet();
            command.run();
            phase.incrementAndGet();
          }
        } finally {
          done.set(true);
        }
      });
      writer.get(300, TimeUnit.SECONDS);
      for (Future<?> reader : readers) {
        reader.get(300, TimeUnit.SECONDS);
      }
    } finally {
      done.set(true);
      pool.shutdownNow();
    }

    assertThat(badRead.get()).isNull();
    assertThat(reads.get()).as("reads made").isPositive();
    assertThat(ix.compactionsInPlace()).as("compactions in place under the readers")
        .isGreaterThan(50);
    assertThat(RunIndexModelProperties.match(ix, pinned, watched[0])).isEqualTo(PINNED_BLOCKS);
    assertThat(RunIndexModelProperties.match(ix, toggled, watched[0]))
        .isEqualTo(toggledAfter.get(commands.size()));
  }
}
