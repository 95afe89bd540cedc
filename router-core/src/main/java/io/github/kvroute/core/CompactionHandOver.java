package io.github.kvroute.core;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Hands the prefix index's due compactions to an executor, one task at a time
 * ({@link PrefixIndex}, "Compactions").
 *
 * <h2>Design notes</h2>
 * A task run on the thread that handed it over, within {@code execute} ({@code Runnable::run}),
 * compacts in place where it can, as a write without an executor does; run on any other thread,
 * it compacts into new arrays, so that readers never wait for it. A task clears the hand-over
 * before it takes the write lock, so a write that leaves another compaction due meanwhile hands
 * over the next. An executor that refuses the task (or throws) gets the compaction done on the
 * handing thread at once: a host's executor loses no compaction.
 *
 * <p>Thread-safety: thread-safe; writers of the index call {@link #handOver} without its lock.
 */
final class CompactionHandOver {
  /** Runs the compaction that is due, under the index's write lock. */
  interface Compactor {
    /** Compacts what is due, rewriting published arrays only if {@code inPlace}. */
    void compactDue(boolean inPlace);
  }

  private final Executor executor;
  private final Compactor compactor;
  /** Whether a task was handed to the executor and has not started yet. */
  private final AtomicBoolean handedOver = new AtomicBoolean();
  /** Tasks the executor refused, each compacted on the handing thread instead. */
  private final LongAdder refused = new LongAdder();

  CompactionHandOver(Executor executor, Compactor compactor) {
    this.executor = executor;
    this.compactor = compactor;
  }

  /** Hands a compaction task to the executor, unless one is handed over and not started. */
  void handOver() {
    if (!handedOver.compareAndSet(false, true)) {
      return;
    }
    Task task = new Task(Thread.currentThread());
    try {
      executor.execute(task);
    } catch (RuntimeException e) {
      refused.increment();
      handedOver.set(false);
      compactor.compactDue(true);
    }
    task.returned = true;
  }

  /** Tasks the executor refused so far. */
  long refused() {
    return refused.sum();
  }

  /**
   * One compaction handed over. Thread-safety: run once, by the executor; {@link #returned} is
   * set by the handing thread once {@code execute} has returned.
   */
  private final class Task implements Runnable {
    private final Thread handing;
    volatile boolean returned;

    Task(Thread handing) {
      this.handing = handing;
    }

    @Override
    public void run() {
      handedOver.set(false);
      compactor.compactDue(!returned && Thread.currentThread() == handing);
    }
  }
}
