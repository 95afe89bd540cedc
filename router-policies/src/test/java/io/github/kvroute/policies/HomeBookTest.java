package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A router's recent prefixes and their agreed homes: bounded, expiring, safe to call concurrently. */
class HomeBookTest {
  private static final long SECOND = 1_000_000_000L;

  private static List<CandidateView> fleet(int n) {
    List<CandidateView> views = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      views.add(CandidateView.newBuilder().replicaId("replica-" + i).build());
    }
    return views;
  }

  @Test
  void twoRoutersThatSawTheSamePrefixesAgreeOnEveryHome_inAnyOrder() {
    HomeBook a = new HomeBook();
    HomeBook b = new HomeBook();
    List<CandidateView> fleet = fleet(4);
    for (long k = 1; k <= 6; k++) {
      a.home(k * 0x9E3779B97F4A7C15L, 190, fleet, 0, true);
    }
    for (long k = 6; k >= 1; k--) {
      b.home(k * 0x9E3779B97F4A7C15L, 190, fleet, 0, true);
    }
    long later = 2 * SECOND;
    for (long k = 1; k <= 6; k++) {
      long key = k * 0x9E3779B97F4A7C15L;
      assertThat(a.home(key, 190, fleet, later, true)).isNotNull().isEqualTo(b.home(key, 190, fleet, later, true));
    }
  }

  @Test
  void aPrefixNotSeenForAMinuteIsForgotten_andTheBookStaysBounded() {
    HomeBook book = new HomeBook();
    List<CandidateView> fleet = fleet(4);
    book.home(1, 10, fleet, 0, true);
    for (int i = 0; i < 2 * HomeBook.MAX_PREFIXES; i++) {
      book.home(1_000 + i, 10, fleet, SECOND + i, true);
    }
    book.home(2, 10, fleet, 3 * SECOND, true);
    assertThat(book.remembered()).isLessThanOrEqualTo(HomeBook.MAX_PREFIXES + 1);
    long muchLater = (HomeBook.WINDOW_SECONDS + 5) * SECOND;
    book.home(3, 10, fleet, muchLater, true);
    assertThat(book.remembered()).as("only the prefix seen now").isEqualTo(1);
    assertThat(book.home(3, 10, fleet, muchLater + 2 * SECOND, true)).isNotNull();
  }

  @Test
  void aChangedFleetIsRehomedWithinTheMinimumInterval() {
    HomeBook book = new HomeBook();
    book.home(5, 10, fleet(4), 0, true);
    List<CandidateView> three = fleet(3);
    long soon = HomeBook.MIN_INTERVAL_MILLIS * 1_000_000L;
    assertThat(book.home(5, 10, three, soon, true)).isIn("replica-0", "replica-1", "replica-2");
  }

  @Test
  void concurrentCallersAlwaysGetAHomeInTheFleetOrNone() throws Exception {
    HomeBook book = new HomeBook();
    List<CandidateView> fleet = fleet(8);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch start = new CountDownLatch(1);
    ConcurrentHashMap<String, Boolean> seen = new ConcurrentHashMap<>();
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int thread = t;
      done.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < 20_000; i++) {
          String home = book.home((i * 31L + thread) % 900, 1 + i % 50, fleet, i * 1_000_000L, true);
          seen.put(home == null ? "none" : home, true);
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    seen.remove("none");
    assertThat(seen.keySet()).isNotEmpty().allSatisfy(id -> assertThat(id).startsWith("replica-"));
    assertThat(book.remembered()).isLessThanOrEqualTo(900);
  }

  @Test
  void aHomeAskedWithoutNotingChangesNothing() {
    HomeBook book = new HomeBook();
    List<CandidateView> fleet = fleet(4);
    book.home(1, 10, fleet, 0, true);
    book.home(2, 10, fleet, 0, true);
    double share = book.share(1, 0);
    String home = book.home(1, 10, fleet, 0, false);
    assertThat(book.home(3, 10, fleet, SECOND, false)).as("not routed: no home yet").isNull();
    assertThat(book.share(1, 0)).isEqualTo(share);
    assertThat(book.share(3, SECOND)).isEqualTo(HomeBook.NOT_SEEN);
    assertThat(book.remembered()).isEqualTo(2);
    assertThat(book.home(1, 10, fleet, 0, true)).isEqualTo(home);
  }

  @Test
  void aPrefixsShareIsItsPartOfTheRecentRequests_decayingWithTime() {
    HomeBook book = new HomeBook();
    List<CandidateView> fleet = fleet(4);
    assertThat(book.share(1, 0)).isEqualTo(HomeBook.NOT_SEEN);
    book.home(1, 10, fleet, 0, true);
    book.home(1, 10, fleet, 0, true);
    book.home(2, 10, fleet, 0, true);
    book.home(3, 10, fleet, 0, true);
    assertThat(book.share(1, 0)).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(book.share(2, 0)).isCloseTo(0.25, org.assertj.core.data.Offset.offset(1e-12));
    // one memory later prefix 2 is routed again: its old request counts e^-1, the others decay alike
    long later = HomeBook.SHARE_MEMORY_SECONDS * SECOND;
    book.home(2, 10, fleet, later, true);
    double old = Math.exp(-1);
    assertThat(book.share(2, later)).isCloseTo((old + 1) / (4 * old + 1),
        org.assertj.core.data.Offset.offset(1e-12));
    assertThat(book.share(1, later)).isCloseTo(2 * old / (4 * old + 1),
        org.assertj.core.data.Offset.offset(1e-12));
  }

  @Test
  void theRepeatShareIsOneUntilThereIsEvidence_thenThePartOfRequestsWhosePrefixWasRemembered() {
    HomeBook book = new HomeBook();
    List<CandidateView> fleet = fleet(4);
    assertThat(book.repeatShare()).as("before any request").isEqualTo(1.0);
    // unique prompts, 10 ms apart: nothing repeats
    for (int i = 0; i < HomeBook.REPEAT_EVIDENCE - 2; i++) {
      book.home(100 + i, 10, fleet, i * 10_000_000L, true);
    }
    assertThat(book.repeatShare()).as("too few requests to tell").isEqualTo(1.0);
    for (int i = HomeBook.REPEAT_EVIDENCE - 2; i < 200; i++) {
      book.home(100 + i, 10, fleet, i * 10_000_000L, true);
    }
    assertThat(book.repeatShare()).as("a stream of unique prompts").isEqualTo(0.0);
    // then four tenants' prefixes take turns: three memories on, the unique stream weighs e^-3 of
    // what it did, and all but the tenants' first four requests repeat
    long start = 200 * 10_000_000L;
    long span = 3 * HomeBook.SHARE_MEMORY_SECONDS * SECOND;
    for (long n = 0; n * 10_000_000L <= span; n++) {
      book.home(n % 4, 10, fleet, start + n * 10_000_000L, true);
    }
    assertThat(book.repeatShare()).isGreaterThan(0.95).isLessThan(1.0);
  }

  @Test
  void aRouterTakingOneRequestASecondStillLearnsItsTrafficSharesNothing() {
    // a tenth of a memory's worth of evidence per memory: the decaying count of all requests
    // stays near ten, under the evidence, however long the router runs
    HomeBook book = new HomeBook();
    List<CandidateView> fleet = fleet(4);
    for (int i = 0; i < 120; i++) {
      book.home(100 + i, 10, fleet, i * SECOND, true);
    }
    assertThat(book.repeatShare()).as("two minutes of unique prompts").isEqualTo(0.0);
    // one prompt in ten repeats the one before it
    for (int i = 120; i < 400; i++) {
      book.home(100 + i - (i % 10 == 0 ? 1 : 0), 10, fleet, i * SECOND, true);
    }
    assertThat(book.repeatShare()).isGreaterThan(0.0).isLessThan(0.3);
  }
}
