package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.RequestRef;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link DispatchLedger#read} takes no monitor, and what it copies is always one consistent state of
 * the books, however the writers interleave.
 */
class DispatchLedgerReadTest {
  private static final int PROMPT = 1_000;
  private static final int OUTPUT = 100;

  private static Lease lease(int n, long atNanos) {
    return new Lease(new RequestRef("q-" + n, 1), null, 0, null, atNanos, PROMPT, OUTPUT, 0, 5, 5,
        0, Double.NaN);
  }

  @Test
  void readCompletesWhileAnotherThreadHoldsTheLedgersMonitor() throws Exception {
    DispatchLedger ledger = new DispatchLedger();
    ledger.dispatch(lease(1, 0));
    AtomicReference<LedgerReading> seen = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      LedgerReading r = new LedgerReading();
      ledger.read(1_000_000, r);
      seen.set(r);
    });
    boolean everBlocked = false;
    synchronized (ledger) {
      reader.start();
      // a reader that wanted the monitor would park BLOCKED here until we let go, and never end
      while (reader.getState() != Thread.State.TERMINATED) {
        if (blockedOnALedger(reader)) {
          everBlocked = true;
          break;
        }
        Thread.onSpinWait();
      }
    }
    reader.join();
    assertThat(everBlocked).as("the reader waited for the ledger's monitor").isFalse();
    assertThat(seen.get().inFlightRequests).isEqualTo(1);
    assertThat(seen.get().inFlightTokens).isEqualTo(PROMPT + OUTPUT);
  }

  @Test
  void concurrentReadsSeeOnlyWholeWrites() throws Exception {
    DispatchLedger ledger = new DispatchLedger();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong reads = new AtomicLong();
    AtomicReference<String> torn = new AtomicReference<>();
    Thread writer = new Thread(() -> {
      Lease[] open = new Lease[8];
      int n = 0;
      while (!stop.get()) {
        int i = n % open.length;
        if (open[i] != null) {
          ledger.release(open[i]);
        }
        open[i] = lease(++n, n);
        ledger.dispatch(open[i]);
        if (n % 64 == 0) {
          ledger.onReport(n - 4, 1.0, 0);
        }
      }
    });
    writer.start();
    LedgerReading r = new LedgerReading();
    try {
      while (reads.get() < 200_000 && torn.get() == null) {
        ledger.read(Long.MAX_VALUE / 2, r);
        reads.incrementAndGet();
        // every lease carries the same tokens: any whole state has tokens = count x per-lease tokens
        if (r.inFlightTokens != (long) r.inFlightRequests * (PROMPT + OUTPUT)
            || r.sinceOutstandingTokens != (long) r.sinceCount * (PROMPT + OUTPUT)
            // nothing matched: each send adds its whole prompt and output as KV
            || r.sinceKvTokens != r.sinceOutstandingTokens
            || r.inFlightRequests < 0 || r.inFlightRequests > 8) {
          torn.set("requests " + r.inFlightRequests + ", tokens " + r.inFlightTokens + ", since "
              + r.sinceCount + ", since tokens " + r.sinceOutstandingTokens + ", since KV "
              + r.sinceKvTokens);
        }
      }
    } finally {
      stop.set(true);
      writer.join();
    }
    assertThat(torn.get()).as("a torn read").isNull();
    ledger.read(Long.MAX_VALUE / 2, r);
    assertThat(r.inFlightRequests).isEqualTo(8);
  }

  /**
   * Whether {@code t} waits to enter a ledger's monitor. Other monitors (class loading and
   * initialization, shared with tests running beside this one) are waited out, not counted.
   */
  static boolean blockedOnALedger(Thread t) {
    java.lang.management.ThreadInfo info =
        java.lang.management.ManagementFactory.getThreadMXBean().getThreadInfo(t.getId());
    return info != null && info.getThreadState() == Thread.State.BLOCKED
        && info.getLockInfo() != null
        && info.getLockInfo().getClassName().equals(DispatchLedger.class.getName());
  }
}
