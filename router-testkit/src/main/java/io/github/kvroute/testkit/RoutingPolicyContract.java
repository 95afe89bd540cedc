package io.github.kvroute.testkit;

import io.github.kvroute.api.ManualTicker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.api.UpdateResult;
import io.github.kvroute.core.Router;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link RoutingPolicy} must honour, checked through a real {@link Router}. Extend
 * it in a test and name the policy:
 *
 * <pre>{@code
 * class MyPolicyContractTest extends RoutingPolicyContract {
 *   @Override protected String policyName() { return "my-policy"; }
 *   @Override protected Map<String, String> policyConfig() { return Map.of("weight", "2"); }
 * }
 * }</pre>
 * A policy that is not registered overrides {@link #newPolicy(PolicyEnvironment)} instead. The checks:
 * <ul>
 *   <li>it never routes to an ineligible replica (not READY, a stale epoch, another model or version,
 *       draining, removed, adapter unavailable, wrong role) and never trips the router's containment
 *       (no exception, no invalid decision: {@code stats().pluginFailures() == 0});
 *   <li>an empty fleet, or a fleet with nothing eligible, yields a {@link RejectReason#NO_CANDIDATES}
 *       rejection value, not an exception;
 *   <li>it is deterministic under a seed: two routers fed identically decide identically;
 *   <li>it is thread-safe: concurrent {@code route} calls while reports, KV events and membership
 *       churn arrive leave the router's books balanced (a {@link RouterStress} phase: outcomes for
 *       everything, nothing in flight overall or per replica, the counts adding up, no plugin failure).
 * </ul>
 * Properties run in virtual time ({@link ManualTicker}) with jqwik; tries are modest so a policy's whole
 * contract runs in a few seconds. The test classpath needs the jqwik and JUnit Jupiter engines.
 *
 * <p>Not thread-safe (one instance per test, as jqwik and JUnit create them).
 */
public abstract class RoutingPolicyContract {

  /** {@return the registered name of the policy under test} */
  protected abstract String policyName();

  /** {@return the policy's configuration; default empty (the provider's defaults)} */
  protected Map<String, String> policyConfig() {
    return Map.of();
  }

  /**
   * A new policy instance for one router, created with that router's ticker and randomness. Default:
   * {@link #policyName()} with {@link #policyConfig()} from the default registry.
   *
   * @param environment the router's ticker, randomness and registry
   * @return a new policy
   */
  protected RoutingPolicy newPolicy(PolicyEnvironment environment) {
    ConfigOrError<RoutingPolicy> p = RoutingPolicyRegistry.defaultRegistry()
        .newPolicy(policyName(), policyConfig(), environment);
    assertTrue(p.isOk(), () -> "policy " + policyName() + ": " + p.error());
    return p.value();
  }

  /**
   * A router with the policy under test, time on {@code ticker}, randomness seeded with
   * {@code seed}.
   *
   * @param ticker the router's clock
   * @param seed the seed of the router's randomness
   * @param listener the router's listener
   * @return the router, with a 1 MiB index budget
   */
  protected Router newRouter(ManualTicker ticker, long seed, RouterListener listener) {
    RandomSource random = RandomSource.seeded(seed);
    RoutingPolicy policy = newPolicy(PolicyEnvironment.of(ticker, random));
    return Router.newBuilder().policy(policy).ticker(ticker).random(random)
        .indexBudgetBytes(1L << 20).listener(listener).build();
  }

  @Provide
  Arbitrary<RouterScript> routerScripts() {
    return KvrouteArbitraries.routerScripts();
  }

  @Property(tries = 30)
  void neverRoutesToAnIneligibleReplica(@ForAll("routerScripts") RouterScript workload, @ForAll long seed) {
    ManualTicker ticker = new ManualTicker();
    Failures failures = new Failures();
    EligibilityModel model = new EligibilityModel();
    try (Router router = newRouter(ticker, seed, failures)) {
      workload.playOn(router, ticker, new RouterScript.Observer() {
        @Override
        public void reported(ReplicaSnapshot snapshot, UpdateResult result) {
          model.reported(snapshot, result);
        }

        @Override
        public void removed(String replicaId) {
          model.removed(replicaId);
        }

        @Override
        public void routed(Request request, RoutingDecision decision) {
          assertNull(model.violation(request, decision),
              () -> policyName() + " routed " + request.id() + " ineligibly: "
                  + model.violation(request, decision));
          if (!decision.isRouted() && !model.anyPlacement(request)) {
            assertEquals(RejectReason.NO_CANDIDATES, decision.reason(), decision::toString);
          }
        }
      });
      failures.assertNone(router);
    }
  }

  @Test
  void emptyFleetIsANoCandidatesRejection() {
    ManualTicker ticker = new ManualTicker();
    Failures failures = new Failures();
    try (Router router = newRouter(ticker, 1, failures)) {
      RoutingDecision d = router.route(request("empty", null, null));
      assertFalse(d.isRouted(), d::toString);
      assertEquals(RejectReason.NO_CANDIDATES, d.reason());
      failures.assertNone(router);
    }
  }

  @Test
  void nothingEligibleIsANoCandidatesRejection() {
    ManualTicker ticker = new ManualTicker();
    Failures failures = new Failures();
    String m = KvrouteArbitraries.MODEL;
    try (Router router = newRouter(ticker, 2, failures)) {
      router.onSnapshot(snap("starting", m, "v2").state(ReplicaState.STARTING).build());
      router.onSnapshot(snap("draining", m, "v2").state(ReplicaState.DRAINING).build());
      router.onSnapshot(snap("stopped", m, "v2").state(ReplicaState.STOPPED).build());
      router.onSnapshot(snap("other-model", KvrouteArbitraries.OTHER_MODEL, "v2").build());
      router.onSnapshot(snap("other-version", m, "v1").build());
      router.onSnapshot(snap("no-adapter", m, "v2").loadableAdapters(Set.of()).build());
      router.onSnapshot(snap("prefill-only", m, "v2").role(ReplicaRole.PREFILL).build());
      router.onSnapshot(snap("restarted", m, "v2").epoch(1).build());
      router.onSnapshot(snap("restarted", m, "v2").epoch(2).state(ReplicaState.STARTING).build());
      assertEquals(UpdateResult.STALE_EPOCH,
          router.onSnapshot(snap("restarted", m, "v2").epoch(1).build()));
      router.onSnapshot(snap("removed", m, "v2").build());
      router.removeReplica("removed");
      RoutingDecision d = router.route(request("nothing", "v2", "lora-sql"));
      assertFalse(d.isRouted(), d::toString);
      assertEquals(RejectReason.NO_CANDIDATES, d.reason());
      failures.assertNone(router);
    }
  }

  @Property(tries = 15)
  void deterministicUnderASeed(@ForAll("routerScripts") RouterScript workload, @ForAll long seed) {
    List<String> first = play(workload, seed);
    List<String> second = play(workload, seed);
    assertEquals(first, second, () -> policyName() + " decided differently under seed " + seed);
  }

  private List<String> play(RouterScript workload, long seed) {
    ManualTicker ticker = new ManualTicker();
    Failures failures = new Failures();
    try (Router router = newRouter(ticker, seed, failures)) {
      List<String> decisions = workload.playOn(router, ticker).stream()
          .map(RoutingDecision::toString).toList();
      failures.assertNone(router);
      return decisions;
    }
  }

  @Test
  void threadSafeWhileTheFleetChurns() throws Exception {
    ConcurrentChurn.run(this::newRouter, policyName());
  }

  static ReplicaSnapshot.Builder snap(String id, String model, String version) {
    return ReplicaSnapshot.newBuilder().replicaId(id).model(model).modelVersion(version);
  }

  static Request request(String id, String version, String adapter) {
    String m = KvrouteArbitraries.MODEL;
    Request.Builder b = Request.newBuilder().id(id).model(m).prompt(PromptKey.ofTokens(
        KvrouteArbitraries.systemPrompt(0, 100), CacheNamespace.of(m, version, adapter)));
    if (version != null) {
      b.modelVersion(version);
    }
    if (adapter != null) {
      b.adapter(adapter);
    }
    return b.build();
  }

  /** Records contained plugin failures, so an assertion can show them. */
  static final class Failures implements RouterListener {
    final List<String> seen = new CopyOnWriteArrayList<>();

    @Override
    public void onPluginFailure(String plugin, Throwable error) {
      seen.add(plugin + ": " + error);
    }

    void assertNone(Router router) {
      assertEquals(List.of(), seen, "contained plugin failures");
      assertEquals(0, router.stats().pluginFailures(), "router.stats().pluginFailures()");
    }
  }
}
