package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * What a decision's views hold from the per-replica caches (books read by their version, facts
 * derived once per report) equals, term by term, what the uncached path gives at the same time:
 * each view's books equal a fresh copy of its ledger, and its standard estimate equals the one
 * evaluated on a plain copy of the view (whose step term reads the report itself), for random
 * reports, sends, first tokens, outcomes and times.
 */
class CachedEstimateProperties {
  /** One step: {@code kind} 0-4 route, 5 outcome, 6 first token, 7-8 report, 9 time passes. */
  record Op(int kind, int pick, int millis, int value) {}

  @Provide
  Arbitrary<List<Op>> ops() {
    return Combinators.combine(Arbitraries.integers().between(0, 9),
        Arbitraries.integers().between(0, 1_000), Arbitraries.integers().between(0, 300),
        Arbitraries.integers().between(0, 5_000)).as(Op::new).list().ofMinSize(1).ofMaxSize(120);
  }

  /** Checks every candidate's view against the uncached path, then routes to the first. */
  private static final class Checking implements RoutingPolicy {
    int checkedViews;

    @Override
    public String name() {
      return "checking";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      List<CandidateView> candidates = context.candidates();
      for (CandidateView c : candidates) {
        MutableView v = (MutableView) c;
        LedgerReading fresh = new LedgerReading();
        // with the decision's own decay clock, as the view's reading was taken
        v.entry.ledger.read(context.nowNanos(), fresh, ((DecisionContext) context).decay);
        assertThat(bits(v.reading.queueMillis)).isEqualTo(bits(fresh.queueMillis));
        assertThat(bits(v.reading.ownRatePerSecond)).isEqualTo(bits(fresh.ownRatePerSecond));
        assertThat(v.reading.inFlightRequests).isEqualTo(fresh.inFlightRequests);
        assertThat(v.reading.sinceCount).isEqualTo(fresh.sinceCount);
        assertThat(v.reading.sinceKvTokens).isEqualTo(fresh.sinceKvTokens);
        CandidateView copy = copyOf(v);
        RoutingContext plain = RoutingContexts.fixed(context.request(), List.of(copy),
            RandomSource.seeded(1), context.nowNanos(), CostModel.defaults());
        CostBreakdown cached = context.estimate(v);
        CostBreakdown uncached = plain.estimate(copy);
        assertThat(cached.size()).isEqualTo(uncached.size()).isEqualTo(6);
        for (int i = 0; i < cached.size(); i++) {
          assertThat(bits(cached.millis(i))).as(cached.term(i))
              .isEqualTo(bits(uncached.millis(i)));
        }
        checkedViews++;
      }
      return candidates.isEmpty() ? context.noCandidates()
          : RoutingDecision.routed(candidates.get(0), CostBreakdown.empty());
    }
  }

  @Property(tries = 150)
  void cachedViewsEqualTheUncachedEstimateTermByTerm(@ForAll("ops") List<Op> ops) {
    ManualTicker ticker = new ManualTicker();
    Checking policy = new Checking();
    Router router = Router.newBuilder().policy(policy).ticker(ticker).seed(5).build();
    int replicas = 4;
    for (int r = 0; r < replicas; r++) {
      router.onSnapshot(report(r, 0, 0));
    }
    List<Request> sent = new ArrayList<>();
    List<RoutingDecision> decisions = new ArrayList<>();
    int n = 0;
    int routes = 0;
    for (Op op : ops) {
      ticker.advanceMillis(op.millis());
      switch (op.kind()) {
        case 0, 1, 2, 3, 4 -> {
          Request request = TestData.request("q" + ++n,
              TestData.prompt(16 + op.value() % 2_000, op.pick() % 4)).build();
          RoutingDecision d = router.route(request);
          routes++;
          if (d.isRouted()) {
            sent.add(request);
            decisions.add(d);
          }
        }
        case 5 -> {
          if (!sent.isEmpty()) {
            int i = op.pick() % sent.size();
            router.onOutcome(TestData.outcome(sent.remove(i), decisions.remove(i),
                OutcomeStatus.SUCCESS).build());
          }
        }
        case 6 -> {
          if (!sent.isEmpty()) {
            int i = op.pick() % sent.size();
            RoutingDecision d = decisions.get(i);
            router.onFirstToken(sent.get(i).id(), sent.get(i).attempt(), d.replicaId(), d.epoch());
          }
        }
        case 7, 8 -> router.onSnapshot(report(op.pick() % replicas, op.value(), op.pick()));
        default -> { }
      }
    }
    // every route sees the four READY replicas (no breaker opens: no failures are reported)
    assertThat(policy.checkedViews).as("views checked").isEqualTo(4 * routes);
  }

  /** A report whose optional fields come and go with {@code shape}. */
  private static ReplicaSnapshot report(int replica, int value, int shape) {
    ReplicaSnapshot.Builder b = TestData.ready("r" + replica);
    if (shape % 2 == 0) {
      b.waitingRequests(value % 7).queuedPrefillTokens(value);
    }
    if (shape % 3 == 0) {
      b.kvBlocks(value % 200, 200).kvBlockSizeTokens(16);
    }
    if (shape % 5 != 0) {
      b.decodeStepMillis(5 + value % 40);
    }
    if (shape % 7 == 0) {
      b.prefillTokensPerSecond(5_000 + value);
    }
    if (shape % 11 == 0) {
      b.estimatedQueueDelayMillis(value % 500);
    }
    return b.build();
  }

  private static CandidateView copyOf(CandidateView v) {
    CandidateView.Builder b = CandidateView.newBuilder().replicaId(v.replicaId()).epoch(v.epoch())
        .role(v.role()).snapshot(v.snapshot()).snapshotAgeMillis(v.snapshotAgeMillis())
        .telemetryStale(v.telemetryStale())
        .inFlight(v.inFlightRequests(), v.inFlightTokens(), v.inFlightPromptTokens())
        .dispatchedSinceSnapshot(v.dispatchedSinceSnapshot())
        .estimatedQueueMillis(v.estimatedQueueMillis())
        .calibratedQueueMillis(v.calibratedQueueMillis())
        .queueUncertaintyMillis(v.queueUncertaintyMillis())
        .estimatedOutstandingTokens(v.estimatedOutstandingTokens())
        .matched(v.matchedBlocks(), v.matchedTokens())
        .cache(v.cachedBlocks(), v.cacheCapacityBlocks())
        .prefill(v.prefillOverheadMillis(), v.prefillMillisPerToken())
        .adapterLoadMillis(v.adapterLoadMillis()).kvTransferMillis(v.kvTransferMillis())
        .unseenArrivalsPerSecond(v.unseenArrivalsPerSecond())
        .arrivalsPerSecond(v.arrivalsPerSecond())
        .meanRequestCostMillis(v.meanRequestCostMillis())
        .cacheHitReliability(v.cacheHitReliability()).cacheFromEvents(v.cacheFromEvents());
    v.kvUtilization().ifPresent(b::kvUtilization);
    v.freeKvTokens().ifPresent(b::freeKvTokens);
    v.recentTtftMillis().ifPresent(b::recentTtftMillis);
    return b.build();
  }

  private static long bits(double d) {
    return Double.doubleToRawLongBits(d);
  }
}
