package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.RequestRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The lease table's intrusive stripes: every lease is found while open and gone once closed or
 * expired, exactly one of close and expiry wins for each, and the links a lease carries are not
 * left pointing into a table after it leaves (a corrupted chain would lose or resurrect leases).
 */
class LeaseTableTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final ManualTicker ticker = new ManualTicker();
  private final ConcurrentLinkedQueue<Lease> expired = new ConcurrentLinkedQueue<>();
  private final LeaseTable table = new LeaseTable(ticker, TIMEOUT, expired::add);

  private static Lease lease(String id, int attempt) {
    return new Lease(new RequestRef(id, attempt), null, 0, null, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  @Test
  void manyLeasesOpenAtOnce_areEachFoundThenGone() {
    // enough to grow every stripe's bucket arrays several times
    List<Lease> leases = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      Lease l = lease("req-" + i, 1 + i % 3);
      assertThat(table.add(l)).isTrue();
      assertThat(table.supersede(l)).isNull();
      leases.add(l);
    }
    assertThat(table.openCount()).isEqualTo(5_000);
    for (Lease l : leases) {
      assertThat(table.get(l.ref())).isSameAs(l);
      assertThat(table.add(lease(l.ref().requestId(), l.ref().attempt()))).isFalse();
    }
    for (int i = 0; i < leases.size(); i += 2) {
      assertThat(table.close(leases.get(i))).isTrue();
      assertThat(table.close(leases.get(i))).isFalse();
    }
    for (int i = 0; i < leases.size(); i++) {
      Lease l = leases.get(i);
      assertThat(table.get(l.ref())).isSameAs(i % 2 == 0 ? null : l);
      assertThat(table.wasClosed(l.ref())).isEqualTo(i % 2 == 0);
      Lease l2 = lease(l.ref().requestId(), l.ref().attempt() + 1);
      assertThat(table.olderOpen(l2.ref())).isSameAs(i % 2 == 0 ? null : l);
    }
    assertThat(table.openCount()).isEqualTo(2_500);
    assertThat(expired).isEmpty();
  }

  @Test
  void expiry_isOldestFirst_invisibleAtOnce_andRunsOnTheNextWrite() {
    Lease a = lease("a", 1);
    Lease b = lease("b", 1);
    table.add(a);
    ticker.advanceSeconds(1);
    table.add(b);
    ticker.advanceSeconds(9);
    // a is due: invisible to a read, and the read that meets it runs the expiry
    assertThat(expired).isEmpty();
    assertThat(table.get(a.ref())).isNull();
    assertThat(expired).containsExactly(a);
    assertThat(table.wasClosed(a.ref())).isTrue();
    assertThat(table.close(a)).isFalse();

    ticker.advanceSeconds(5);
    Lease c = lease("c", 1);
    table.add(c);
    assertThat(expired).containsExactly(a, b);
    assertThat(table.get(c.ref())).isSameAs(c);
    assertThat(table.openCount()).isEqualTo(1);
  }

  @Test
  void anExpiredAttempt_isReplacedByANewLeaseOfTheSameAttempt() {
    Lease first = lease("a", 1);
    table.add(first);
    ticker.advanceNanos(TIMEOUT.toNanos());
    Lease again = lease("a", 1);
    assertThat(table.add(again)).isTrue();
    assertThat(expired).containsExactly(first);
    assertThat(table.get(again.ref())).isSameAs(again);
    assertThat(table.openCount()).isEqualTo(1);
  }

  @Test
  void supersede_closesTheOlderAttempt_andTheLatestIsTheNewOne() {
    Lease one = lease("a", 1);
    table.add(one);
    assertThat(table.supersede(one)).isNull();
    Lease two = lease("a", 2);
    table.add(two);
    // the latest attempt is the one last superseding, not the highest open
    assertThat(table.newerOpen(one.ref())).isNull();
    assertThat(table.supersede(two)).isSameAs(one);
    assertThat(table.newerOpen(one.ref())).isSameAs(two);
    assertThat(table.get(one.ref())).isNull();
    assertThat(table.wasClosed(one.ref())).isTrue();
    assertThat(table.olderOpen(new RequestRef("a", 3))).isSameAs(two);
    assertThat(table.close(two)).isTrue();
    assertThat(table.olderOpen(new RequestRef("a", 3))).isNull();
    assertThat(table.newerOpen(one.ref())).isNull();
  }

  /**
   * Four threads open, supersede and close leases of ids that collide in stripes while the clock
   * moves, so that expiry races the closes: each lease ends exactly once, by a close that returned
   * true or by expiry, and nothing stays open or half-linked.
   */
  @Test
  void concurrentOpensClosesAndExpiries_endEachLeaseExactlyOnce() throws Exception {
    int threads = 4;
    int perThread = 20_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    CyclicBarrier start = new CyclicBarrier(threads + 1);
    AtomicInteger closedByCall = new AtomicInteger();
    List<Future<List<Lease>>> all = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        int thread = t;
        all.add(pool.submit(() -> {
          List<Lease> mine = new ArrayList<>();
          start.await();
          for (int i = 0; i < perThread; i++) {
            String id = "t" + thread + "-" + (i / 2);
            Lease l = lease(id, 1 + i % 2);
            assertThat(table.add(l)).isTrue();
            Lease superseded = table.supersede(l);
            if (superseded != null) {
              closedByCall.incrementAndGet();
            }
            mine.add(l);
            if (i % 3 == 0 && table.close(l)) {
              closedByCall.incrementAndGet();
            }
          }
          return mine;
        }));
      }
      Future<?> clock = pool.submit(() -> {
        start.await();
        for (int i = 0; i < 2_000; i++) {
          ticker.advanceMillis(10);
          table.cleanUp();
        }
        return null;
      });
      List<Lease> leases = new ArrayList<>();
      for (Future<List<Lease>> f : all) {
        leases.addAll(f.get(60, TimeUnit.SECONDS));
      }
      clock.get(60, TimeUnit.SECONDS);
      for (Lease l : leases) {
        if (table.close(l)) {
          closedByCall.incrementAndGet();
        }
      }
      ticker.advanceNanos(TIMEOUT.toNanos());
      table.cleanUp();

      assertThat(table.openCount()).isZero();
      assertThat(closedByCall.get() + expired.size()).isEqualTo(threads * perThread);
      assertThat(new java.util.HashSet<>(expired)).hasSameSizeAs(expired);
      for (Lease l : leases) {
        assertThat(table.get(l.ref())).isNull();
        assertThat(table.wasClosed(l.ref())).isTrue();
        assertThat(l.nextByRef).isNull();
        assertThat(l.nextLatest).isNull();
        assertThat(l.olderOpen).isNull();
        assertThat(l.newerOpen).isNull();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
