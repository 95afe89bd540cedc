package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.LatencyTotals;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.ReplicaSnapshot;
import org.junit.jupiter.api.Test;

/**
 * A replica's recent mean TTFT, read from the differences of its TTFT histogram's sum and count
 * between reports (what a gateway scraping {@code vllm:time_to_first_token_seconds} can compute).
 */
class RecentTtftTest {
  private final ManualTicker ticker = new ManualTicker();
  private final RecordingPolicy policy = new RecordingPolicy(new LeastEstimatePolicy());
  private final Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
  private int requests;

  private CandidateView view() {
    router.route(request("q-" + ++requests, prompt(500, requests)).build());
    return policy.views.get("r0");
  }

  private void report(double sumSeconds, long count) {
    ticker.advanceMillis(250);
    router.onSnapshot(ttft(sumSeconds, count));
  }

  private ReplicaSnapshot ttft(double sumSeconds, long count) {
    return ready("r0").observedAtNanos(ticker.read())
        .timeToFirstToken(new LatencyTotals(sumSeconds, count)).build();
  }

  @Test
  void unknownUntilTwoReportsWithFirstTokensBetweenThem() {
    router.onSnapshot(ready("r0").observedAtNanos(ticker.read()).build());
    assertThat(view().recentTtftMillis()).as("no histogram").isEmpty();
    report(1.0, 10);
    assertThat(view().recentTtftMillis()).as("one report is a total, not a rate").isEmpty();
    report(1.0, 10);
    assertThat(view().recentTtftMillis()).as("no first token since").isEmpty();
  }

  @Test
  void theMeanOfTheFirstTokensBetweenReports_thenARunningAverage() {
    report(1.0, 10);
    report(3.0, 20); // 10 first tokens in 2 s: 200 ms each
    assertThat(view().recentTtftMillis()).hasValueCloseTo(200.0, within(1e-9));

    report(3.5, 30); // 10 in 0.5 s: 50 ms each, weighted 0.3
    assertThat(view().recentTtftMillis())
        .hasValueCloseTo(200 + Fleet.TTFT_SMOOTHING * (50 - 200), within(1e-9));
  }

  @Test
  void aHistogramThatWentBackwardsStartsOver() {
    report(1.0, 10);
    report(3.0, 20);
    report(0.1, 1); // the process restarted under the same epoch: its counters reset

    assertThat(view().recentTtftMillis()).isEmpty();
    report(0.5, 5); // 4 first tokens in 0.4 s
    assertThat(view().recentTtftMillis()).hasValueCloseTo(100.0, within(1e-9));
  }

  @Test
  void aRestartForgetsIt() {
    report(1.0, 10);
    report(3.0, 20);
    ticker.advanceMillis(250);
    router.onSnapshot(ready("r0").epoch(1).observedAtNanos(ticker.read())
        .timeToFirstToken(new LatencyTotals(9.0, 90)).build());

    assertThat(view().recentTtftMillis()).isEmpty();
  }
}
