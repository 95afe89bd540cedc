package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.PromptKey;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Who pays for index writes: a routing thread applies a bounded share of the buffered hints per
 * call, the buffer is bounded in bytes, and a KV event's producer applies it itself. Another thread
 * holds the write lock to stand for a busy writer; every step waits on a latch, never on the clock.
 */
class IndexWriteBufferTest {
  private final PrefixIndex index = new PrefixIndex(1L << 20, 1L << 30, 1 << 16);
  private final int[] slot = index.allocateSlot();
  private final CountDownLatch locked = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private Thread holder;

  /** Another thread takes the write lock and keeps it until {@link #unlock}. */
  private void lockElsewhere() throws InterruptedException {
    ReentrantLock lock = index.writeLockForTests();
    holder = new Thread(() -> {
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
    holder.start();
    locked.await();
  }

  private void unlock() throws InterruptedException {
    release.countDown();
    holder.join();
  }

  @AfterEach
  void stopHolder() throws InterruptedException {
    if (holder != null) {
      unlock();
    }
  }

  private static PromptKey prompt(int seed, int blocks) {
    int[] tokens = new int[blocks];
    for (int i = 0; i < blocks; i++) {
      tokens[i] = seed * 1_000_003 + i;
    }
    return IndexHarness.blocks(tokens);
  }

  @Test
  void aRoutingThreadAppliesABoundedShareOfOthersBufferedHints() throws InterruptedException {
    lockElsewhere();
    for (int i = 0; i < 1_000; i++) {
      index.insertRouted(slot[0], slot[1], prompt(i, 4), 0);
    }
    assertThat(index.bufferedCommands()).isEqualTo(1_000);
    unlock();

    index.insertRouted(slot[0], slot[1], prompt(5_000, 4), 0);

    assertThat(index.bufferedCommands())
        .isGreaterThanOrEqualTo(1_001 - PrefixIndex.DRAIN_COMMANDS);
    index.flush();
    assertThat(index.bufferedCommands()).isZero();
    assertThat(index.slotEntries(slot[0])).isEqualTo(1_001 * 4);
  }

  @Test
  void theHintBufferIsBoundedInBytesAndDropsAreCounted() throws InterruptedException {
    lockElsewhere();
    int blocks = 2_048;
    for (int i = 0; i < 100; i++) {
      index.insertRouted(slot[0], slot[1], prompt(i, blocks), 0);
    }

    assertThat(index.bufferedBytes()).isLessThanOrEqualTo(index.bufferBytesLimit());
    assertThat((long) index.bufferedCommands() * 8 * blocks)
        .isLessThanOrEqualTo(index.bufferBytesLimit());
    assertThat(index.droppedHints()).isEqualTo(100 - index.bufferedCommands());
    assertThat(index.droppedHints()).isPositive();
  }

  @Test
  void aKvEventIsAppliedByItsProducerNotLeftForRoutingThreads() throws InterruptedException {
    lockElsewhere();
    long[] keys = new long[5_000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i + 1;
    }
    Thread producer = new Thread(() -> index.kvStored(slot[0], slot[1], keys));
    producer.start();
    // the producer either returned (it buffered its event) or waits for the lock (it will apply it)
    while (producer.isAlive() && !index.writeLockForTests().hasQueuedThread(producer)) {
      Thread.onSpinWait();
    }
    unlock();
    holder = null;
    producer.join();

    assertThat(index.bufferedCommands()).isZero();
    assertThat(index.slotEntriesNow(slot[0])).isEqualTo(keys.length);
  }
}
