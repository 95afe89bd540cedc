package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.Ticker;
import io.github.kvroute.api.UpdateResult;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A decision reads the clock once, and so does its outcome: the attempt table's checks and records,
 * the closed-attempt mark, the books and the breaker all work from that reading (a reading of the
 * system clock is some 25 ns; a route and its outcome took ten).
 */
class ClockReadsTest {
  @Test
  void aRouteAndItsOutcomeReadTheClockOnceEach() {
    AtomicLong reads = new AtomicLong();
    AtomicLong time = new AtomicLong(1_000_000_000L);
    Ticker counting = () -> {
      reads.incrementAndGet();
      return time.get();
    };
    Router router =
        Router.newBuilder().seed(1).policy(new LeastEstimatePolicy()).ticker(counting).build();
    for (int r = 0; r < 8; r++) {
      router.onSnapshot(TestData.ready("r" + r).waitingRequests(r % 3)
          .queuedPrefillTokens(100L * r).build());
    }
    for (int i = 0; i < 20; i++) {
      Request request = request("q" + i, prompt(512, i % 3)).maxOutputTokens(32).build();
      time.addAndGet(1_000_000);
      long before = reads.get();
      RoutingDecision d = router.route(request);
      assertThat(d.isRouted()).isTrue();
      assertThat(reads.get() - before).as("route %s", i).isEqualTo(1);

      time.addAndGet(5_000_000);
      before = reads.get();
      UpdateResult result = router.onOutcome(outcome(request, d, OutcomeStatus.SUCCESS).build());
      assertThat(result).isEqualTo(UpdateResult.APPLIED);
      assertThat(reads.get() - before).as("outcome %s", i).isEqualTo(1);
    }
  }
}
