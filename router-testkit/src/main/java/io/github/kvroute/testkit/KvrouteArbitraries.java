package io.github.kvroute.testkit;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.Priority;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Builders;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * jqwik {@link Arbitrary} factories for kvroute's values: prompts that share prefixes, requests,
 * replica reports, fleets and simple workloads. Everything generated is valid (builders never throw)
 * and is drawn mostly from a small vocabulary ({@link #MODEL}, {@link #VERSIONS}, {@link #ADAPTERS},
 * a few system prompts and session ids) so that requests meet replicas that can serve them, prompts
 * hit the prefix index and sessions come back.
 *
 * <pre>{@code
 * @Property
 * void myPolicyNeverThrows(@ForAll("fleet") List<ReplicaSnapshot> fleet) { ... }
 *
 * @Provide
 * Arbitrary<List<ReplicaSnapshot>> fleet() { return KvrouteArbitraries.fleets(); }
 * }</pre>
 *
 * <p>Prompts are hashed with {@link PromptKey#DEFAULT_BLOCK_SIZE_TOKENS}-token blocks, a router's
 * default block size.
 *
 * <p>Thread-safety: the factories are stateless; arbitraries are jqwik's.
 */
public final class KvrouteArbitraries {
  /** The model most requests and replicas use. */
  public static final String MODEL = "model-a";
  /** A second model, so that some replicas cannot serve some requests. */
  public static final String OTHER_MODEL = "model-b";
  /** Model versions requests may be pinned to and replicas may serve. */
  public static final List<String> VERSIONS = List.of("v1", "v2");
  /** LoRA adapters requests may need and replicas may hold. */
  public static final List<String> ADAPTERS = List.of("lora-sql", "lora-chat", "lora-code");
  /** Distinct shared system prompts; prompts drawn from them share leading blocks. */
  public static final int SYSTEM_PROMPTS = 4;
  private static final int BLOCK = PromptKey.DEFAULT_BLOCK_SIZE_TOKENS;

  private KvrouteArbitraries() {}

  /**
   * {@return token ids: up to 12 blocks of one of {@link #SYSTEM_PROMPTS} fixed system prompts,
   * then up to 120 random tokens} Two prompts with the same system prompt share their leading
   * blocks.
   */
  public static Arbitrary<int[]> promptTokens() {
    return Combinators.combine(Arbitraries.integers().between(0, SYSTEM_PROMPTS - 1),
        Arbitraries.integers().between(0, 12),
        Arbitraries.integers().between(0, 49_999).array(int[].class).ofMaxSize(120))
        .as((system, blocks, suffix) -> concat(systemPrompt(system, blocks * BLOCK), suffix));
  }

  /**
   * The first {@code tokens} tokens of system prompt {@code which}; deterministic.
   *
   * @param which the system prompt's number; different numbers give different tokens
   * @param tokens the length wanted, in tokens
   * @return the token ids, in {@code [50000, 100000)}
   */
  public static int[] systemPrompt(int which, int tokens) {
    int[] t = new int[tokens];
    for (int i = 0; i < tokens; i++) {
      t[i] = 50_000 + (int) (((long) which * 1_000_003 + (long) i * 7_919) % 50_000);
    }
    return t;
  }

  /** {@return requests mostly for {@link #MODEL} (one in ten for {@link #OTHER_MODEL})} */
  public static Arbitrary<Request> requests() {
    return Arbitraries.frequencyOf(Tuple.of(9, requests(MODEL)), Tuple.of(1, requests(OTHER_MODEL)));
  }

  /**
   * Requests for {@code model}: sometimes pinned to a version (15%), needing an adapter (15%), in
   * one of eight sessions (40%), with a TTFT budget (30%, possibly already spent upstream); any
   * priority; the prompt hashed in the namespace of model, version and adapter.
   *
   * @param model the model requested
   * @return the arbitrary
   */
  public static Arbitrary<Request> requests(String model) {
    return Builders.withBuilder(() -> new RequestSpec(model))
        .use(Arbitraries.longs().greaterOrEqual(0)).in((s, v) -> s.set(r -> r.id = "req-" + v))
        .use(Arbitraries.of(VERSIONS)).withProbability(0.15).in((s, v) -> s.set(r -> r.version = v))
        .use(Arbitraries.of(ADAPTERS)).withProbability(0.15).in((s, v) -> s.set(r -> r.adapter = v))
        .use(Arbitraries.integers().between(0, 7)).withProbability(0.4)
        .in((s, v) -> s.set(r -> r.session = "session-" + v))
        .use(Arbitraries.of(Priority.class)).in((s, v) -> s.set(r -> r.priority = v))
        .use(promptTokens()).in((s, v) -> s.set(r -> r.tokens = v))
        .use(Arbitraries.integers().between(1, 2_048)).in((s, v) -> s.set(r -> r.maxOutput = v))
        .use(Arbitraries.integers().between(0, 2_000)).withProbability(0.3)
        .in((s, v) -> s.set(r -> r.budgetMillis = v))
        .use(Arbitraries.integers().between(0, 1_000)).withProbability(0.3)
        .in((s, v) -> s.set(r -> r.upstreamMillis = v))
        .build(RequestSpec::build);
  }

  /** {@return reports from any replica id {@code replica-0} to {@code replica-7}} */
  public static Arbitrary<ReplicaSnapshot> snapshots() {
    return Arbitraries.integers().between(0, 7).flatMap(i -> snapshots("replica-" + i));
  }

  /**
   * Reports from {@code replicaId}: mostly READY (also STARTING, DRAINING, STOPPED), mostly MIXED
   * (also PREFILL, DECODE), mostly {@link #MODEL}, epoch 0 to 3, an optional version, resident and
   * loadable adapters, and each load field present or absent independently.
   *
   * @param replicaId the replica's id
   * @return the arbitrary
   */
  public static Arbitrary<ReplicaSnapshot> snapshots(String replicaId) {
    Arbitrary<ReplicaState> states = Arbitraries.frequency(Tuple.of(14, ReplicaState.READY),
        Tuple.of(2, ReplicaState.STARTING), Tuple.of(2, ReplicaState.DRAINING),
        Tuple.of(1, ReplicaState.STOPPED));
    Arbitrary<ReplicaRole> roles = Arbitraries.frequency(Tuple.of(12, ReplicaRole.MIXED),
        Tuple.of(1, ReplicaRole.PREFILL), Tuple.of(1, ReplicaRole.DECODE));
    Arbitrary<Set<String>> adapterSets = Arbitraries.of(ADAPTERS).set().ofMaxSize(ADAPTERS.size());
    Arbitrary<long[]> kv = Combinators.combine(Arbitraries.longs().between(0, 10_000),
        Arbitraries.longs().between(1, 10_000)).as((a, b) -> new long[] {Math.min(a, b), b});
    return Builders.withBuilder(() -> ReplicaSnapshot.newBuilder().replicaId(replicaId))
        .use(Arbitraries.longs().between(0, 3)).in(ReplicaSnapshot.Builder::epoch)
        .use(states).in(ReplicaSnapshot.Builder::state)
        .use(roles).in(ReplicaSnapshot.Builder::role)
        .use(Arbitraries.frequency(Tuple.of(9, MODEL), Tuple.of(1, OTHER_MODEL)))
        .in(ReplicaSnapshot.Builder::model)
        .use(Arbitraries.of(VERSIONS)).withProbability(0.3).in(ReplicaSnapshot.Builder::modelVersion)
        .use(adapterSets).withProbability(0.5).in(ReplicaSnapshot.Builder::residentAdapters)
        .use(adapterSets).withProbability(0.3).in(ReplicaSnapshot.Builder::loadableAdapters)
        .use(Arbitraries.integers().between(0, 40)).withProbability(0.7)
        .in(ReplicaSnapshot.Builder::waitingRequests)
        .use(Arbitraries.integers().between(0, 128)).withProbability(0.7)
        .in(ReplicaSnapshot.Builder::runningRequests)
        .use(Arbitraries.longs().between(0, 200_000)).withProbability(0.6)
        .in(ReplicaSnapshot.Builder::queuedPrefillTokens)
        .use(Arbitraries.longs().between(0, 100_000)).withProbability(0.6)
        .in(ReplicaSnapshot.Builder::outstandingDecodeTokens)
        .use(kv).withProbability(0.6).in((b, v) -> b.kvBlocks(v[0], v[1]))
        .use(Arbitraries.of(16, 32)).withProbability(0.6).in(ReplicaSnapshot.Builder::kvBlockSizeTokens)
        .use(Arbitraries.doubles().between(500, 50_000)).withProbability(0.4)
        .in(ReplicaSnapshot.Builder::prefillTokensPerSecond)
        .use(Arbitraries.doubles().between(5, 200)).withProbability(0.4)
        .in(ReplicaSnapshot.Builder::decodeStepMillis)
        .use(Arbitraries.doubles().between(0, 3_000)).withProbability(0.3)
        .in(ReplicaSnapshot.Builder::estimatedQueueDelayMillis)
        .build(ReplicaSnapshot.Builder::build);
  }

  /**
   * Fleets of 0 to 8 replicas with distinct ids {@code replica-0}, {@code replica-1}, ...
   *
   * @return the arbitrary
   */
  public static Arbitrary<List<ReplicaSnapshot>> fleets() {
    return fleets(0, 8);
  }

  /**
   * Fleets of {@code min} to {@code max} replicas with distinct ids.
   *
   * @param min the fewest replicas, {@code >= 0}
   * @param max the most replicas
   * @return the arbitrary; ids are {@code replica-0}, {@code replica-1}, ...
   */
  public static Arbitrary<List<ReplicaSnapshot>> fleets(int min, int max) {
    return Arbitraries.integers().between(min, max).flatMap(n -> {
      if (n == 0) {
        return Arbitraries.just(List.<ReplicaSnapshot>of());
      }
      List<Arbitrary<ReplicaSnapshot>> each = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        each.add(snapshots("replica-" + i));
      }
      return Combinators.combine(each).as(List::copyOf);
    });
  }

  /**
   * Workloads on a fleet of 1 to 6 replicas: 5 to 60 actions (routes of {@link #requests()} with
   * unique ids, outcomes of earlier routes, new reports from the fleet's replicas or a newcomer,
   * removals, and time steps).
   *
   * @return the arbitrary
   */
  public static Arbitrary<RouterScript> routerScripts() {
    return fleets(1, 6).flatMap(fleet -> actions(fleet.size()).list().ofMinSize(5).ofMaxSize(60)
        .map(actions -> new RouterScript(fleet, RouterScript.numbered(actions))));
  }

  private static Arbitrary<RouterScript.Action> actions(int fleetSize) {
    Arbitrary<RouterScript.Action> route = requests().map(RouterScript.Route::new);
    Arbitrary<RouterScript.Action> complete = Combinators.combine(
        Arbitraries.integers().between(0, 1_000),
        Arbitraries.frequency(Tuple.of(8, OutcomeStatus.SUCCESS),
            Tuple.of(1, OutcomeStatus.TIMEOUT),
            Tuple.of(1, OutcomeStatus.CANCELLED)))
        .as(RouterScript.Complete::new);
    Arbitrary<RouterScript.Action> report = Arbitraries.integers().between(0, fleetSize)
        .flatMap(i -> snapshots("replica-" + i)).map(RouterScript.Report::new);
    Arbitrary<RouterScript.Action> remove = Arbitraries.integers().between(0, fleetSize - 1)
        .map(i -> new RouterScript.Remove("replica-" + i));
    Arbitrary<RouterScript.Action> advance =
        Arbitraries.longs().between(1, 5_000).map(RouterScript.Advance::new);
    return Arbitraries.frequencyOf(Tuple.of(10, route), Tuple.of(4, complete), Tuple.of(3, report),
        Tuple.of(1, remove), Tuple.of(2, advance));
  }

  private static int[] concat(int[] a, int[] b) {
    int[] out = new int[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** Mutable fields of a request being generated. */
  private static final class RequestSpec {
    final String model;
    String id = "req";
    String version;
    String adapter;
    String session;
    Priority priority = Priority.STANDARD;
    int[] tokens = new int[0];
    int maxOutput = 256;
    Integer budgetMillis;
    Integer upstreamMillis;

    RequestSpec(String model) {
      this.model = model;
    }

    RequestSpec set(java.util.function.Consumer<RequestSpec> f) {
      f.accept(this);
      return this;
    }

    Request build() {
      Request.Builder b = Request.newBuilder().id(id).model(model).priority(priority)
          .maxOutputTokens(maxOutput)
          .prompt(PromptKey.ofTokens(tokens, CacheNamespace.of(model, version, adapter)));
      Optional.ofNullable(version).ifPresent(b::modelVersion);
      Optional.ofNullable(adapter).ifPresent(b::adapter);
      Optional.ofNullable(session).ifPresent(b::sessionId);
      if (budgetMillis != null) {
        b.ttftBudget(Duration.ofMillis(budgetMillis));
      }
      if (upstreamMillis != null) {
        b.upstreamElapsed(Duration.ofMillis(upstreamMillis));
      }
      return b.build();
    }
  }
}
