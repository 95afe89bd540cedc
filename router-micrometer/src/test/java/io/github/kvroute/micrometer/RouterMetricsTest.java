package io.github.kvroute.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.Scorer;
import io.github.kvroute.core.BreakerConfig;
import io.github.kvroute.core.CostTerms;
import io.github.kvroute.core.Router;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each meter of {@link RouterMetrics} moves when the router does what it counts. */
class RouterMetricsTest {
  private static final String MODEL = "m";
  private static final CacheNamespace NS = CacheNamespace.of(MODEL);

  private final ManualTicker ticker = new ManualTicker();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final RouterMetrics metrics =
      RouterMetrics.newBuilder().tags(Tags.of("gateway", "gw-1")).build();
  private int requests;

  private Router router(Router.Builder b) {
    Router router = b.policy("hybrid-cost").ticker(ticker).seed(1).listener(metrics)
        .indexBudgetBytes(1L << 20).build();
    metrics.monitor(router).bindTo(registry);
    return router;
  }

  private Router router() {
    return router(Router.newBuilder());
  }

  private static ReplicaSnapshot.Builder replica(String id) {
    return ReplicaSnapshot.newBuilder().replicaId(id).model(MODEL);
  }

  private Request request() {
    int n = ++requests;
    int[] tokens = new int[64];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = n * 1_000 + i;
    }
    return Request.newBuilder().id("q-" + n).model(MODEL).prompt(PromptKey.ofTokens(tokens, NS))
        .build();
  }

  private static Outcome.Builder outcome(Request r, RoutingDecision d, OutcomeStatus status) {
    return Outcome.newBuilder().requestId(r.id()).attempt(r.attempt()).replicaId(d.replicaId())
        .epoch(d.epoch()).status(status);
  }

  private double count(String name, String... tags) {
    Counter c = registry.find(name).tags(tags).counter();
    return c == null ? 0 : c.count();
  }

  private double gauge(String name, String... tags) {
    Gauge g = registry.find(name).tags(tags).gauge();
    assertThat(g).as(name).isNotNull();
    return g.value();
  }

  private double total(String name) {
    FunctionCounter c = registry.find(name).functionCounter();
    assertThat(c).as(name).isNotNull();
    return c.count();
  }

  @Test
  void decisionsByPolicyAndReplica_rejectionsByReason_retries() {
    Router router = router();
    router.onSnapshot(replica("r0").build());

    Request first = request();
    router.route(first);
    router.route(first.nextAttempt());
    router.route(Request.newBuilder().id("x").model("unknown-model")
        .prompt(PromptKey.ofTokens(new int[] {1}, CacheNamespace.of("unknown-model"))).build());

    assertThat(count("kvroute.routed", "policy", "hybrid-cost", "replica", "r0", "gateway", "gw-1"))
        .isEqualTo(2);
    assertThat(count("kvroute.rejected", "policy", "hybrid-cost", "reason", "no_candidates"))
        .isEqualTo(1);
    assertThat(count("kvroute.retries", "policy", "hybrid-cost")).isEqualTo(1);
  }

  @Test
  void ttftErrorIsRecordedAsUnderOrOverPrediction_andOutcomesByResultAndStatus() {
    Router router = router();
    router.onSnapshot(replica("r0").estimatedQueueDelayMillis(100).build());
    Request slow = request();
    RoutingDecision d1 = router.route(slow);
    Request fast = request();
    RoutingDecision d2 = router.route(fast);
    double predicted = d1.cost().totalMillis();

    router.onOutcome(outcome(slow, d1, OutcomeStatus.SUCCESS)
        .ttft(Duration.ofMillis((long) predicted + 500)).build());
    router.onOutcome(outcome(fast, d2, OutcomeStatus.SUCCESS).ttft(Duration.ZERO).build());
    router.onOutcome(outcome(fast, d2, OutcomeStatus.SUCCESS).build()); // duplicate

    DistributionSummary under = registry.find("kvroute.ttft.error")
        .tags("direction", "under", "replica", "r0").summary();
    DistributionSummary over = registry.find("kvroute.ttft.error")
        .tags("direction", "over", "replica", "r0").summary();
    assertThat(under.count()).isEqualTo(1);
    assertThat(under.totalAmount()).isEqualTo((long) predicted + 500 - predicted);
    assertThat(over.count()).isEqualTo(1);
    assertThat(over.totalAmount()).isEqualTo(d2.cost().totalMillis());
    assertThat(registry.find("kvroute.ttft.observed").tags("replica", "r0").summary().count())
        .isEqualTo(2);
    assertThat(count("kvroute.outcomes", "result", "applied", "status", "success")).isEqualTo(2);
    assertThat(count("kvroute.outcomes", "result", "duplicate", "status", "success")).isEqualTo(1);
  }

  @Test
  void orphansExpiriesRestartsAndStateChanges() {
    Router router = router(Router.newBuilder().leaseTimeout(Duration.ofSeconds(1)));
    router.onSnapshot(replica("r0").build());
    router.onSnapshot(replica("r1").build());
    router.route(request());
    router.route(request());
    ticker.advanceSeconds(2);
    router.stats(); // runs the lease table's expiry

    router.route(request());
    router.route(request());
    router.onSnapshot(replica("r0").epoch(1).observedAtNanos(ticker.read()).build());
    router.onSnapshot(replica("r1").epoch(1).observedAtNanos(ticker.read()).build());

    assertThat(count("kvroute.leases.expired", "replica", "r0")
        + count("kvroute.leases.expired", "replica", "r1")).isEqualTo(2);
    assertThat(count("kvroute.attempts.orphaned", "replica", "r0")
        + count("kvroute.attempts.orphaned", "replica", "r1")).isEqualTo(2);
    assertThat(count("kvroute.replica.restarts", "replica", "r0")).isEqualTo(1);
    assertThat(count("kvroute.replica.state.changes", "to", "ready")).isGreaterThanOrEqualTo(2);
  }

  @Test
  void breakerTransitionsAndStates() {
    Router router = router(Router.newBuilder().breaker(
        BreakerConfig.newBuilder().consecutiveFailures(1).build()));
    router.onSnapshot(replica("r0").build());
    router.onSnapshot(replica("r1").estimatedQueueDelayMillis(1_000).build());
    assertThat(gauge("kvroute.replicas.breaker", "state", "closed")).isEqualTo(2);

    Request r = request();
    RoutingDecision d = router.route(r);
    router.onOutcome(outcome(r, d, OutcomeStatus.REPLICA_ERROR).build());

    assertThat(count("kvroute.breaker.transitions", "replica", d.replicaId(), "to", "open"))
        .isEqualTo(1);
    assertThat(gauge("kvroute.replicas.breaker", "state", "open")).isEqualTo(1);
    assertThat(gauge("kvroute.replicas.breaker", "state", "closed")).isEqualTo(1);
  }

  @Test
  void pluginFailuresByPlugin() {
    Scorer broken = new Scorer() {
      @Override
      public String name() {
        return "broken";
      }

      @Override
      public double costMillis(Request request, CandidateView candidate) {
        throw new IllegalStateException("scorer bug");
      }
    };
    RouterListener throwing = new RouterListener() {
      @Override
      public void onDecision(Request request, RoutingDecision decision) {
        throw new IllegalStateException("listener bug");
      }
    };
    Router router = router(Router.newBuilder().costTerms(List.of(CostTerms.queue(), broken))
        .listener(throwing));
    router.onSnapshot(replica("r0").build());

    router.route(request());

    assertThat(count("kvroute.plugin.failures", "plugin", "scorer broken")).isPositive();
    assertThat(count("kvroute.plugin.failures", "plugin",
        "listener " + throwing.getClass().getName())).isEqualTo(1);
    assertThat(count("kvroute.routed", "replica", "r0")).as("metrics still heard the decision")
        .isEqualTo(1);
  }

  @Test
  void gaugesReadTheRoutersTotals() {
    Router router = router();
    router.onSnapshot(replica("r0").build());
    Request r = request();
    router.route(r);
    router.onKvEvent(KvEvent.stored("r0", 0, r.prompt().blockHashes()).withSequence(1));
    router.onKvEvent(KvEvent.stored("r0", 0, r.prompt().blockHashes()).withSequence(1));
    router.onKvEvent(KvEvent.stored("r0", 0, r.prompt().blockHashes()).withSequence(5));
    router.onKvEvent(KvEvent.stored("ghost", 0, r.prompt().blockHashes()));
    router.onSnapshot(replica("r0").observedAtNanos(ticker.read() + Duration.ofMinutes(1).toNanos())
        .build());

    assertThat(gauge("kvroute.index.entries")).isEqualTo(r.prompt().blockCount());
    assertThat(gauge("kvroute.index.blocks")).isEqualTo(r.prompt().blockCount());
    assertThat(gauge("kvroute.index.size")).isPositive();
    assertThat(gauge("kvroute.index.budget")).isEqualTo(1L << 20);
    assertThat(gauge("kvroute.inflight")).isEqualTo(1);
    assertThat(total("kvroute.kv.events.out.of.order")).isEqualTo(1);
    assertThat(total("kvroute.kv.events.gaps")).isEqualTo(1);
    assertThat(total("kvroute.kv.events.dropped")).isEqualTo(1);
    assertThat(total("kvroute.reports.skewed")).isEqualTo(1);
    // a full write buffer needs a writer holding the index's lock (router-core's own tests do that)
    assertThat(total("kvroute.index.hints.dropped"))
        .isEqualTo(router.stats().droppedIndexHints());
    // compactions come with churn (router-core's concurrency test sees them counted)
    assertThat(total("kvroute.index.compactions")).isEqualTo(router.stats().indexCompactions());
  }

  @Test
  void replicaTagsAreBounded_laterIdsFoldIntoOther() {
    RouterMetrics bounded = RouterMetrics.newBuilder().maxReplicaTags(2).build();
    Router router = Router.newBuilder().policy("round-robin").ticker(ticker).listener(bounded)
        .build();
    bounded.monitor(router).bindTo(registry);
    for (String id : List.of("a", "b", "c", "d")) {
      router.onSnapshot(replica(id).build());
    }

    for (int i = 0; i < 8; i++) {
      router.route(request());
    }

    assertThat(registry.find("kvroute.routed").counters())
        .extracting(c -> c.getId().getTag("replica")).containsExactlyInAnyOrder("a", "b", "other");
    assertThat(count("kvroute.routed", "replica", "other")).isEqualTo(4);
    assertThat(count("kvroute.routed", "policy", "round-robin", "replica", "a")).isEqualTo(2);
  }

  @Test
  void gaugesReadNaNUntilMonitored_andEveryBoundRegistryCounts() {
    RouterMetrics m = RouterMetrics.create();
    SimpleMeterRegistry second = new SimpleMeterRegistry();
    m.bindTo(registry);
    assertThat(registry.find("kvroute.inflight").gauge().value()).isNaN();
    Router router = Router.newBuilder().ticker(ticker).listener(m).build();
    m.monitor(router);
    m.bindTo(second);
    router.onSnapshot(replica("r0").build());

    router.route(request());

    assertThat(registry.find("kvroute.routed").counter().count()).isEqualTo(1);
    assertThat(second.find("kvroute.routed").counter().count()).isEqualTo(1);
    assertThat(second.find("kvroute.inflight").gauge().value()).isEqualTo(1);
    assertThatIllegalStateException().isThrownBy(() -> m.monitor(router))
        .withMessage("router: already monitored (expected: one router per RouterMetrics)");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> RouterMetrics.newBuilder().maxReplicaTags(-1))
        .withMessage("maxReplicaTags: -1 (expected: >= 0)");
  }
}
