package io.github.kvroute.core;

import static io.github.kvroute.core.IndexHarness.blocks;
import static io.github.kvroute.core.IndexHarness.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.github.kvroute.api.PromptKey;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * An insert record reused for attempt after attempt leaves the index exactly as new records do;
 * a record that went to the write buffer, where another thread may apply it later, is never
 * reused.
 */
class InsertRecordReuseTest {
  private static final PromptKey[] PROMPTS = {
      blocks(1, 2, 3, 4), blocks(1, 2, 5, 6, 7), blocks(8, 9), blocks(1, 2, 3, 4, 10, 11)};

  /** One attempt: which prompt, what the slot was believed to hold, how it ended. */
  record Attempt(int prompt, int matched, int end) {}

  @Provide
  Arbitrary<List<Attempt>> attempts() {
    return net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 3),
        Arbitraries.integers().between(0, 6), Arbitraries.integers().between(0, 3))
        .as(Attempt::new).list().ofMaxSize(40);
  }

  @Property(tries = 200)
  void aReusedRecordLeavesTheIndexAsNewRecordsDo(@ForAll("attempts") List<Attempt> attempts,
      @ForAll boolean exact) {
    IndexHarness fresh = new IndexHarness(1L << 20, 6);
    IndexHarness reusing = new IndexHarness(1L << 20, 6);
    int[] a = fresh.index.allocateSlot();
    int[] b = reusing.index.allocateSlot();
    if (exact) {
      fresh.index.kvStored(a[0], a[1], keys(PROMPTS[0], 0));
      reusing.index.kvStored(b[0], b[1], keys(PROMPTS[0], 0));
    }
    IndexStore.Insert record = new IndexStore.Insert();
    for (Attempt t : attempts) {
      PromptKey prompt = PROMPTS[t.prompt()];
      IndexStore.Insert made = fresh.index.insertRouted(a[0], a[1], prompt, t.matched());
      assertThat(reusing.index.insertRouted(record, b[0], b[1], prompt, t.matched())).isTrue();
      end(fresh.index, made, t.end());
      end(reusing.index, record, t.end());
      assertThat(record.reusable()).isTrue();

      for (PromptKey p : PROMPTS) {
        assertThat(reusing.match(p, b[0])).isEqualTo(fresh.match(p, a[0]));
      }
      assertThat(reusing.index.slotEntries(b[0])).isEqualTo(fresh.index.slotEntries(a[0]));
    }
  }

  /** How an attempt ends: its outcome (prefill ran or not), an expiry, or a withdrawn decision. */
  private static void end(PrefixIndex index, IndexStore.Insert insert, int how) {
    switch (how) {
      case 0 -> index.endSpeculation(insert);
      case 1 -> index.rollback(insert);
      case 2 -> {
        index.endSpeculation(insert);
        index.rollback(insert);
      }
      default -> { } // expired: a guess stays
    }
  }

  @Test
  void aRecordThatWentToTheBuffer_isNeverReused() throws Exception {
    IndexHarness h = new IndexHarness(1L << 20, 1L << 30);
    PrefixIndex index = h.index;
    int[] slot = index.allocateSlot();
    IndexStore.Insert record = new IndexStore.Insert();
    IndexStore.Insert rolledBack = new IndexStore.Insert();
    assertThat(index.insertRouted(rolledBack, slot[0], slot[1], PROMPTS[1], 0)).isTrue();
    IndexStore.Rollback first = rolledBack.rollback(false);
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ReentrantLock lock = index.writeLockForTests();
    Thread busyWriter = new Thread(() -> {
      lock.lock();
      try {
        locked.countDown();
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        lock.unlock();
      }
    });
    busyWriter.start();
    try {
      locked.await();
      // the lock is busy: both go to the buffer, where the lock's holder may apply them later
      assertThat(index.insertRouted(record, slot[0], slot[1], PROMPTS[0], 0)).isTrue();
      index.rollback(rolledBack);
      assertThat(index.bufferedCommands()).isEqualTo(2);

      assertThat(record.reusable()).isFalse();
      assertThat(rolledBack.reusable()).isFalse();
      assertThatIllegalStateException()
          .isThrownBy(() -> record.set(slot[0], slot[1], PROMPTS[2], 0))
          .withMessage("insert: lent to the buffer (expected: a record no buffered command holds)");
      // a later rollback of a lent record is a new command: the buffered one stays as it was
      assertThat(rolledBack.rollback(true)).isNotSameAs(first);
    } finally {
      release.countDown();
      busyWriter.join();
    }
    index.flush();
    assertThat(index.bufferedCommands()).isZero();
    // applied in order: the second insert, then the first's rollback, which spares what it touched
    assertThat(h.match(PROMPTS[0], slot[0])).isEqualTo(4);
    assertThat(h.match(PROMPTS[1], slot[0])).isEqualTo(2);
  }
}
