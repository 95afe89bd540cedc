package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;
import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.UpdateResult;
import java.time.Duration;
import java.util.Comparator;
import org.junit.jupiter.api.Test;

/**
 * Absurd durations and token counts saturate; nothing overflows into an exception or a wrong sign.
 */
class OverflowTest {
  private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

  private final ManualTicker ticker = new ManualTicker();

  /** Routes to the candidate with the fewest estimated outstanding tokens. */
  private static final class LeastOutstanding implements RoutingPolicy {
    long seenMaxTokens = Long.MIN_VALUE;

    @Override
    public String name() {
      return "least-outstanding";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      for (CandidateView c : context.candidates()) {
        seenMaxTokens = Math.max(seenMaxTokens, c.estimatedOutstandingTokens());
      }
      CandidateView best = context.candidates().stream()
          .min(Comparator.comparingLong(CandidateView::estimatedOutstandingTokens)).orElseThrow();
      return RoutingDecision.routed(best, context.estimate(best));
    }
  }

  @Test
  void anOutcomeWithAnAbsurdTtftIsAppliedAndCounted() {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker).build();
    router.onSnapshot(queued("r1", 0));
    Request r = request("q-1", prompt(1_000, 1)).build();
    RoutingDecision d = router.route(r);

    UpdateResult result = router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS)
        .ttft(Duration.ofDays(365L * 300)).queueTime(Duration.ZERO).cachedTokens(0).build());

    assertThat(result).isEqualTo(UpdateResult.APPLIED);
    assertThat(router.stats().outcomesApplied()).isEqualTo(1);
    assertThat(router.stats().inFlight()).isZero();
  }

  @Test
  void anOutcomeWithAnAbsurdTtftAndNoQueueTimeIsAppliedAndPrintable() {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker).build();
    router.onSnapshot(queued("r1", 0));
    Request r = request("q-1", prompt(1_000, 1)).build();
    RoutingDecision d = router.route(r);
    io.github.kvroute.api.Outcome o = outcome(r, d, OutcomeStatus.SUCCESS).ttft(FOREVER).build();

    assertThat(router.onOutcome(o)).isEqualTo(UpdateResult.APPLIED);
    assertThat(o.toString()).contains("ttft=PT");
    assertThat(RoutingDecision.rejected(RejectReason.OVERLOADED, "busy", FOREVER).toString())
        .contains("retry after PT");
  }

  @Test
  void anUpstreamElapsedOfForeverIsADeadlinePassedNotAFailOpen() {
    Request r = request("q-1", prompt(1_000, 1)).ttftBudget(Duration.ofSeconds(1))
        .upstreamElapsed(FOREVER).build();
    assertThat(r.remainingBudgetMillis()).hasValue(Long.MIN_VALUE);
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker).build();
    router.onSnapshot(queued("r1", 0));

    RoutingDecision d = router.route(r.toBuilder().arrivalNanos(-5_000_000_000L).build());

    assertThat(d.reason()).isEqualTo(RejectReason.DEADLINE);
    assertThat(router.stats().pluginFailures()).isZero();
  }

  @Test
  void queueFieldsAtLongMaxSaturateInsteadOfWrappingNegative() {
    LeastOutstanding policy = new LeastOutstanding();
    Router router = Router.newBuilder().policy(policy).ticker(ticker).build();
    router.onSnapshot(ready("huge").queuedPrefillTokens(Long.MAX_VALUE)
        .outstandingDecodeTokens(Long.MAX_VALUE)
        .kvBlocks(Long.MAX_VALUE, Long.MAX_VALUE).kvBlockSizeTokens(16).build());
    router.onSnapshot(ready("small").queuedPrefillTokens(10).outstandingDecodeTokens(10).build());

    RoutingDecision d = router.route(request("q-1", prompt(1_000, 1)).build());

    assertThat(d.replicaId()).isEqualTo("small");
    assertThat(policy.seenMaxTokens).isEqualTo(Long.MAX_VALUE);
    assertThat(router.stats().pluginFailures()).isZero();
  }

  @Test
  void aReplicaReportingAVanishingPrefillRateNeverWins() {
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker).build();
    router.onSnapshot(ready("absurd").prefillTokensPerSecond(1e-310).build());
    router.onSnapshot(queued("normal", 500));

    for (int i = 0; i < 10; i++) {
      assertThat(router.route(request("q-" + i, prompt(1_000, i)).build()).replicaId())
          .isEqualTo("normal");
    }
  }
}
