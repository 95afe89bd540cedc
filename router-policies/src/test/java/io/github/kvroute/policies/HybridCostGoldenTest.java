package io.github.kvroute.policies;

import io.github.kvroute.api.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.core.Router;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The placement example of docs/cost-model.md and hybrid-cost's tie and staleness rules. */
class HybridCostGoldenTest {
  private static final String MODEL = "llama-3-70b";
  private static final Offset<Double> EXACT = within(1e-9);
  private static final CostModel PLACEMENT =
      CostModel.newBuilder().prefillOverheadMillis(0).prefillMillisPerToken(0.06).build();
  private static final RoutingPolicyRegistry REGISTRY =
      RoutingPolicyRegistry.load(HybridCostGoldenTest.class.getClassLoader());

  private final ManualTicker ticker = new ManualTicker();
  private int requests;

  private static PromptKey doc(CacheNamespace ns) {
    int[] t = new int[4_000];
    for (int i = 0; i < t.length; i++) {
      t[i] = 7 + 31 * i;
    }
    return PromptKey.ofTokens(t, ns);
  }

  private static final PromptKey DOC = doc(CacheNamespace.of(MODEL));

  private Router router(Map<String, String> config, CostModel model, long seed) {
    return Router.newBuilder().registry(REGISTRY).policy("hybrid-cost", config).costModel(model)
        .admission(AdmissionController.admitAll()).ticker(ticker).seed(seed).build();
  }

  /**
   * R0 holds all 4,000 tokens, R2 the first 2,000, R1 nothing; R1 alone lacks {@code adapters}.
   * The example prices one request, so the rule that keeps a request with its prefix's deepest
   * holder for the fleet's sake ({@link HolderStay}, tested there) is off.
   */
  private Router placement(Map<String, String> config, double q0, double q1, double q2,
      Set<String> adapters, PromptKey prompt) {
    Map<String, String> priced = new HashMap<>(config);
    priced.putIfAbsent("stay_ratio", "0");
    Router router = router(priced, PLACEMENT, 42);
    router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("R0").model(MODEL)
        .estimatedQueueDelayMillis(q0).residentAdapters(adapters).build());
    router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("R1").model(MODEL)
        .estimatedQueueDelayMillis(q1).build());
    router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("R2").model(MODEL)
        .estimatedQueueDelayMillis(q2).residentAdapters(adapters).build());
    router.onKvEvent(KvEvent.stored("R0", 0, prompt.blockHashes()));
    router.onKvEvent(KvEvent.stored("R2", 0, Arrays.copyOf(prompt.blockHashes(), 125)));
    return router;
  }

  private Router placement(double q0, double q1, double q2) {
    return placement(Map.of(), q0, q1, q2, Set.of(), DOC);
  }

  private RoutingDecision route(Router router, PromptKey prompt, String adapter) {
    Request.Builder b = Request.newBuilder().id("q-" + ++requests).model(MODEL).prompt(prompt);
    if (adapter != null) {
      b.adapter(adapter);
    }
    return router.route(b.build());
  }

  // -------------------------------------------------------------------------------- placement

  @Test
  void placement_partialLocalityWins_R2At220() {
    RoutingDecision d = route(placement(300, 0, 100), DOC, null);

    assertThat(d.replicaId()).isEqualTo("R2");
    assertThat(d.cost().totalMillis()).isCloseTo(100 + 2_000 * 0.06, EXACT);
    assertThat(d.cost().millis("queue").getAsDouble()).isCloseTo(100, EXACT);
    assertThat(d.cost().millis("prefill").getAsDouble()).isCloseTo(120, EXACT);
    assertThat(d.matchedTokens()).isEqualTo(2_000);
  }

  @Test
  void placement_R2QueueAt150_R1Wins_240Below270() {
    RoutingDecision d = route(placement(300, 0, 150), DOC, null);

    assertThat(d.replicaId()).isEqualTo("R1");
    assertThat(d.cost().totalMillis()).isCloseTo(240, EXACT);
  }

  @ParameterizedTest(name = "R0 queue {0} ms -> {1}")
  @CsvSource({"219, R0", "221, R2"})
  void placement_R0WinsOnlyWhenItsQueueIsUnder220(double r0Queue, String winner) {
    RoutingDecision d = route(placement(r0Queue, 0, 100), DOC, null);

    assertThat(d.replicaId()).isEqualTo(winner);
  }

  /** The weights decide what "best" means: cache-only picks R0, queue-only R1. */
  @ParameterizedTest(name = "{0}={1} -> {2}")
  @CsvSource({"queue_weight, 0, R0", "prefill_weight, 0, R1", "queue_weight, 1, R2"})
  void weightsChangeTheWinner(String key, String weight, String winner) {
    RoutingDecision d =
        route(placement(Map.of(key, weight), 300, 0, 100, Set.of(), DOC), DOC, null);

    assertThat(d.replicaId()).isEqualTo(winner);
  }

  // ---------------------------------------------------------------------------------- adapter

  @Test
  void adapter_R1MustLoadIt_costs1040_andRanksLast() {
    CacheNamespace ns = CacheNamespace.of(MODEL, null, "sql-lora");
    PromptKey doc = doc(ns);
    Set<String> lora = Set.of("sql-lora");

    assertThat(route(placement(Map.of(), 300, 0, 100, lora, doc), doc, "sql-lora").replicaId())
        .isEqualTo("R2");

    Router withoutR2 = placement(Map.of(), 300, 0, 100, lora, doc);
    withoutR2.removeReplica("R2");
    assertThat(route(withoutR2, doc, "sql-lora").replicaId())
        .as("R0 at 300 beats R1 at 1,040").isEqualTo("R0");
    Router noAdapter = placement(Map.of(), 300, 0, 100, lora, DOC); // the base model's cache
    noAdapter.removeReplica("R2");
    assertThat(route(noAdapter, DOC, null).replicaId())
        .as("without the adapter R1 (240) would beat R0 (300)").isEqualTo("R1");

    Router onlyR1 = placement(Map.of(), 300, 0, 100, lora, doc);
    onlyR1.removeReplica("R0");
    onlyR1.removeReplica("R2");
    RoutingDecision d = route(onlyR1, doc, "sql-lora");
    assertThat(d.replicaId()).isEqualTo("R1");
    assertThat(d.cost().totalMillis()).isCloseTo(0 + 240 + 800, EXACT);
    assertThat(d.cost().millis("transfer").getAsDouble()).isCloseTo(800, EXACT);
  }

  // ------------------------------------------------------------------------------------- ties

  /** Idle identical replicas; each request finishes before the next, so they stay tied. */
  private List<String> tiedPlacements(long seed, int n) {
    return placements(idle(router(Map.of(), CostModel.defaults(), seed)), n);
  }

  /** {@code router} with four idle identical replicas. */
  private static Router idle(Router router) {
    for (String id : new String[] {"a", "b", "c", "d"}) {
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId(id).model(MODEL)
          .estimatedQueueDelayMillis(0).build());
    }
    return router;
  }

  /** Where {@code router} places {@code n} requests, each finished before the next. */
  private static List<String> placements(Router router, int n) {
    List<String> placed = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Request r = Request.newBuilder().id("t-" + i).model(MODEL)
          .prompt(PromptKey.unhashed(1_000)).build();
      RoutingDecision d = router.route(r);
      placed.add(d.replicaId());
      router.onOutcome(Outcome.newBuilder().requestId(r.id()).replicaId(d.replicaId())
          .epoch(d.epoch()).status(OutcomeStatus.SUCCESS).build());
    }
    return placed;
  }

  @Test
  void tiesAreBrokenRandomly_notAllOnTheFirstReplica() {
    List<String> placed = tiedPlacements(7, 80);

    Map<String, Integer> counts = new TreeMap<>();
    placed.forEach(id -> counts.merge(id, 1, Integer::sum));
    assertThat(counts).containsOnlyKeys("a", "b", "c", "d");
    assertThat(counts.values()).allSatisfy(c -> assertThat(c).isBetween(5, 40));
  }

  @Test
  void tiesAreReproducibleUnderASeed() {
    assertThat(tiedPlacements(7, 40)).containsExactlyElementsOf(tiedPlacements(7, 40));
    assertThat(tiedPlacements(8, 40)).isNotEqualTo(tiedPlacements(7, 40));
  }

  /**
   * With peers the ties follow the router's own order, drawn at the first tie; a router that
   * explains a prompt before any decision must not have the explanation draw it for its decisions.
   */
  @Test
  void withPeersAnExplanationDoesNotDrawTheTieOrderForLaterDecisions() {
    for (long seed = 1; seed <= 8; seed++) {
      Router explaining = idle(withPeers(seed));
      explaining.explain(Request.newBuilder().id("probe").model(MODEL)
          .prompt(PromptKey.unhashed(1_000)).build());
      List<String> explained = placements(explaining, 10);
      List<String> plain = placements(idle(withPeers(seed)), 10);
      assertThat(explained).as("seed %s", seed).isEqualTo(plain);
      assertThat(Set.copyOf(plain)).as("one favourite while the order lasts").hasSize(1);
    }
  }

  private static Router withPeers(long seed) {
    return Router.newBuilder().registry(REGISTRY).policy("hybrid-cost")
        .admission(AdmissionController.admitAll()).ticker(new ManualTicker()).seed(seed)
        .peerRouters(2).build();
  }

  // -------------------------------------------------------------------------------- staleness

  /** "old" reported at 0 ms with an empty queue; "fresh" reports 3 s later with a 2 s queue. */
  private Router staleFleet(String stale) {
    Router router = router(Map.of("stale", stale), CostModel.defaults(), 3);
    router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("old").model(MODEL)
        .observedAtNanos(ticker.read()).estimatedQueueDelayMillis(0).build());
    ticker.advanceMillis(3_000);
    router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("fresh").model(MODEL)
        .observedAtNanos(ticker.read()).estimatedQueueDelayMillis(2_000).build());
    return router;
  }

  @Test
  void stalePenalize_keepsAStaleCandidateWithTheRiskPenalty() {
    RoutingDecision d = route(staleFleet("penalize"), PromptKey.unhashed(1_000), null);

    // old: 0 + 55 + 1,000 stale penalty = 1,055 beats fresh: 2,000 + 55
    assertThat(d.replicaId()).isEqualTo("old");
    assertThat(d.cost().millis("risk").getAsDouble()).isCloseTo(1_000, EXACT);
  }

  @Test
  void staleExclude_skipsStaleCandidatesWhileAFreshOneExists() {
    RoutingDecision d = route(staleFleet("exclude"), PromptKey.unhashed(1_000), null);

    assertThat(d.replicaId()).isEqualTo("fresh");
  }

  @Test
  void staleExclude_rejectsWithPolicyWhenNoneIsFresh() {
    Router router = staleFleet("exclude");
    ticker.advanceMillis(3_000);

    RoutingDecision d = route(router, PromptKey.unhashed(1_000), null);

    assertThat(d.isRouted()).isFalse();
    assertThat(d.reason()).isEqualTo(RejectReason.POLICY);
    assertThat(d.detail()).contains("stale");
    assertThat(router.stats().rejectedByReason()).containsEntry(RejectReason.POLICY, 1L);
    assertThat(router.stats().pluginFailures()).isZero();
  }

  @Test
  void emptyFleetIsNoCandidates() {
    RoutingDecision d = route(router(Map.of(), CostModel.defaults(), 1), DOC, null);

    assertThat(d.reason()).isEqualTo(RejectReason.NO_CANDIDATES);
  }
}
