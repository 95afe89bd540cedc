package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.collect.ImmutableList;
import io.github.kvroute.sim.trace.TraceSource;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The named scenarios, each built to show the effect it is named for, small enough that one policy
 * runs in well under a second; and scenarios around recorded traces.
 *
 * <p>Thread-safety: immutable and thread-safe.
 */
public final class Scenarios {
  // ---- Default offered rates: the one place to re-pick them. Each is set so that at default load,
  // under the default telemetry profile (vllm) and engine (llama3-8b-h100), no more than three
  // policies tie at SLO attainment 1.000 (the leaders must be told apart), and the default load
  // sweep (0.25x-3x) takes every policy past its knee. A bursty scenario's constant is its rate
  // between bursts; its bursts keep their ratio to it, and quiet and burst periods shorten as the
  // rate grows, so that each brings as many requests as at the reference rate (as --rate-scale
  // does to any workload).
  /** {@code multi-tenant}: Poisson requests per second. */
  static final double MULTI_TENANT_RPS = 40;
  /** {@code hot-prefix}: requests per second between bursts (bursts at 3x). */
  static final double HOT_PREFIX_RPS = 30;
  /** {@code rag-long-docs}: Poisson requests per second. */
  static final double RAG_LONG_DOCS_RPS = 8;
  /** {@code mixed-sizes}: Poisson requests per second. */
  static final double MIXED_SIZES_RPS = 24;
  /** {@code multi-turn-chat}: chat sessions started per second (2-8 turns each). */
  static final double MULTI_TURN_CHAT_SESSIONS_PER_SECOND = 5;
  /** {@code stale-telemetry}: requests per second between bursts (bursts at 2.25x). */
  static final double STALE_TELEMETRY_RPS = 120;
  /** {@code overload}: Poisson requests per second, above what the fleet serves. */
  static final double OVERLOAD_RPS = 50;

  private static final ImmutableList<Scenario> ALL = ImmutableList.of(
      multiTenant(), hotPrefix(), ragLongDocs(), mixedSizes(), multiTurnChat(), staleTelemetry(),
      overload());

  // ---- Failure scenarios: run only when named (not part of all()), each a variation of
  // multi-tenant (overload-3x: of overload) with one thing going wrong 20 s into a run of ~75 s.
  /** When the failure scenarios' fault strikes, in virtual milliseconds from the start. */
  static final long FAULT_AT_MILLIS = 20_000;
  /** {@code event-gap}: the probability that a KV event batch is lost. */
  static final double EVENT_GAP_BATCH_LOSS = 0.005;

  private static final ImmutableList<Scenario> FAILURES = ImmutableList.of(
      replicaCrash(), staleEpochReplay(), telemetryBlackout(), eventGap(), slowReplica(),
      overload3x());

  private Scenarios() {}

  /**
   * {@return the named scenarios of the standard suite, in a stable order (the first is the default
   * of the comparison CLI); the {@link #failures()} are not among them}
   */
  public static List<Scenario> all() {
    return ALL;
  }

  /**
   * {@return the failure scenarios, in a stable order: named, listed by
   * {@code kvroute-sim scenarios}, and run only when asked for by name}
   */
  public static List<Scenario> failures() {
    return FAILURES;
  }

  /**
   * {@return the request-path scenarios (disaggregated pairs, tiers and tenant fairness, hedging),
   * in a stable order: named, listed by {@code kvroute-sim scenarios} after the failure scenarios,
   * and run only when asked for by name}
   */
  public static List<Scenario> requestPath() {
    return RequestPathScenarios.all();
  }

  /**
   * {@return the advisor scenarios, in a stable order: named, listed by
   * {@code kvroute-sim scenarios}, run only when asked for by name; each spans minutes of virtual
   * time, as fleet advice needs}
   */
  public static List<Scenario> advisors() {
    return AdvisorScenarios.all();
  }

  /**
   * The scenario called {@code name} (of the standard suite, a failure, a request-path or an advisor
   * scenario), if any.
   *
   * @param name the scenario's name
   * @return the scenario; empty when none has that name
   */
  public static Optional<Scenario> named(String name) {
    checkNotNull(name, "name: null (expected: a scenario name)");
    return java.util.stream.Stream.of(ALL, FAILURES, requestPath(), advisors()).flatMap(List::stream)
        .filter(s -> s.name().equals(name)).findFirst();
  }

  /** A rate as the descriptions print it: {@code 20}, {@code 22.5}. */
  static String rate(double perSecond) {
    return perSecond == Math.rint(perSecond) ? String.valueOf((long) perSecond)
        : String.format(java.util.Locale.ROOT, "%s", perSecond);
  }

  /**
   * A scenario replaying {@code trace}: 4 replicas with default engines, the trace's block size
   * (512 for Mooncake, 16 when the trace has no prefix information), every request of the trace,
   * telemetry every 250 ms arriving 50 ms late, a 2 s TTFT objective. Override anything with
   * {@link Scenario#toBuilder()}.
   *
   * <p>With the default engine's 411,520 tokens of KV per replica, the full Mooncake conversation
   * trace reuses only 5-7% of its prompt tokens (round-robin 4.9%, cache-aware 6.7%): most of its
   * repeats are minutes apart, far beyond what four such caches hold. With caches that never evict
   * ({@code kvCapacityTokens(1_000_000_000)}) and a tenth of the rate, round-robin reuses 19.6% of
   * the prompt tokens at 4 replicas, 13.9% at 8 and 10.1% at 16: the trace's reuse split across
   * replicas.
   *
   * @param trace the trace, read and validated
   * @return the scenario
   */
  public static Scenario fromTrace(TraceSource trace) {
    checkNotNull(trace, "trace: null (expected: non-null)");
    return Scenario.newBuilder()
        .name(trace.name())
        .description(trace.description())
        .workload(new TraceWorkload(trace))
        .replicas(4)
        .ttftSloMillis(2_000)
        .build();
  }

  /**
   * {@code multi-tenant}: 6 tenants with system prompts of 2,600-3,000 tokens, unique
   * user turns of 32-128 tokens, outputs of 16-64, Poisson {@value #MULTI_TENANT_RPS} req/s over 4
   * replicas whose KV holds 7,168 tokens: two system prompts beside a small running batch, never
   * all six. Round-robin makes every replica cycle through all six prompts (hits about 2 in 6, and
   * KV-bound concurrency); keeping each tenant on one replica keeps its prompt warm. 500 ms TTFT
   * objective, 3,000 requests.
   */
  static Scenario multiTenant() {
    return Scenario.newBuilder()
        .name("multi-tenant")
        .description("6 tenants' ~3k-token system prompts, 4 replicas that keep ~2 warm each;"
            + " Poisson " + rate(MULTI_TENANT_RPS) + " req/s, SLO 500 ms")
        .workload(new SyntheticWorkload(ArrivalProcess.poisson(MULTI_TENANT_RPS),
            Shapes.tenants(new int[] {3_000, 2_800, 2_600, 3_000, 2_800, 2_600}, 32, 128, 16, 64)))
        .replicas(4)
        .kvCapacityTokens(7_168)
        .requests(3_000)
        .ttftSloMillis(500)
        .build();
  }

  /**
   * {@code hot-prefix}: 3 replicas with 32,768 tokens of KV; bursty arrivals
   * ({@value #HOT_PREFIX_RPS} req/s, bursts of three times that; at 20 req/s a burst lasts 2 s on
   * average, every 10 s, and both periods shrink as the rate grows); telemetry every 250 ms
   * arriving 250 ms late; one 6,000-token prefix whose share grows from 5% to 70% of the traffic
   * among 24 background 2,000-token prefixes. Cache-only placement piles the hot prefix onto one
   * replica; load-only placement recomputes it everywhere. 1 s TTFT objective, 3,000 requests.
   */
  static Scenario hotPrefix() {
    return Scenario.newBuilder()
        .name("hot-prefix")
        .description("one 6k-token prefix grows from 5% to 70% of traffic on 3 replicas; bursty "
            + rate(HOT_PREFIX_RPS) + "-" + rate(3 * HOT_PREFIX_RPS)
            + " req/s, telemetry 250 ms late, SLO 1 s")
        .workload(new SyntheticWorkload(ArrivalProcess.bursty(HOT_PREFIX_RPS, 3 * HOT_PREFIX_RPS,
            8 * 20 / HOT_PREFIX_RPS, 2 * 20 / HOT_PREFIX_RPS),
            Shapes.hotPrefix(24, 2_000, 6_000, 0.05, 0.70, 32, 256, 16, 128)))
        .replicas(3)
        .kvCapacityTokens(32_768)
        .telemetryIntervalMillis(250)
        .telemetryDelayMillis(250)
        .requests(3_000)
        .ttftSloMillis(1_000)
        .build();
  }

  /**
   * {@code rag-long-docs}: Zipf(1.1) over 200 documents of 4,000-16,000 tokens,
   * questions of 32-256 tokens, input:output 19-47:1, Poisson {@value #RAG_LONG_DOCS_RPS} req/s
   * over 4 replicas with 131,072 tokens of KV each. Prefill dominates, so every recomputed document
   * costs hundreds of milliseconds. 2 s TTFT objective, 1,500 requests.
   */
  static Scenario ragLongDocs() {
    return Scenario.newBuilder()
        .name("rag-long-docs")
        .description("prefill-heavy RAG: Zipf over 200 documents of 4k-16k tokens, input:output"
            + " 19-47:1, Poisson " + rate(RAG_LONG_DOCS_RPS) + " req/s, SLO 2 s")
        .workload(new SyntheticWorkload(ArrivalProcess.poisson(RAG_LONG_DOCS_RPS),
            Shapes.rag(200, 1.1, 4_000, 16_000, 32, 256)))
        .replicas(4)
        .kvCapacityTokens(131_072)
        .requests(1_500)
        .ttftSloMillis(2_000)
        .build();
  }

  /**
   * {@code mixed-sizes}: unique prompts with log-normal lengths clipped to 100-10,000 tokens
   * (median 800) and outputs of 10-1,000 (median 150), Poisson {@value #MIXED_SIZES_RPS} req/s over
   * 4 replicas: costs differ ~100x, so counting requests is not balancing work. 300 ms TTFT
   * objective, 2,000 requests.
   */
  static Scenario mixedSizes() {
    return Scenario.newBuilder()
        .name("mixed-sizes")
        .description("unique prompts of 100-10,000 tokens (log-normal), no sharing; Poisson "
            + rate(MIXED_SIZES_RPS) + " req/s on 4 replicas, SLO 300 ms")
        .workload(new SyntheticWorkload(ArrivalProcess.poisson(MIXED_SIZES_RPS),
            Shapes.mixedSizes(800, 1.2, 100, 10_000, 150, 1.0, 10, 1_000)))
        .replicas(4)
        .requests(2_000)
        .ttftSloMillis(300)
        .build();
  }

  /**
   * {@code multi-turn-chat}: sessions start at {@value #MULTI_TURN_CHAT_SESSIONS_PER_SECOND}/s with
   * 2-8 turns each; 4 apps with 1,000-token system prompts; user messages ~120 and replies ~250
   * tokens (log-normal); 2 s + exp(8 s) think time. Each turn's prompt is the whole conversation so
   * far, so the replica that served the last turn holds most of the next. 4 replicas with 65,536
   * tokens of KV, 500 ms TTFT objective, 3,000 requests.
   */
  static Scenario multiTurnChat() {
    return Scenario.newBuilder()
        .name("multi-turn-chat")
        .description("chat sessions (" + rate(MULTI_TURN_CHAT_SESSIONS_PER_SECOND)
            + "/s, 2-8 turns) with growing context and think time; 4 replicas, SLO 500 ms")
        .workload(new ChatWorkload(MULTI_TURN_CHAT_SESSIONS_PER_SECOND, 4, 1_000, 2, 8, 120, 250, 2,
            8))
        .replicas(4)
        .kvCapacityTokens(65_536)
        .requests(3_000)
        .ttftSloMillis(500)
        .build();
  }

  /**
   * {@code stale-telemetry}: 3 routers sharing 6 replicas (32,768 tokens of KV each) under bursty
   * load ({@value #STALE_TELEMETRY_RPS} req/s, bursts of 2.25 times that, periods shrinking with
   * the rate) with 16 tenants' 1,000-2,000-token prompts; telemetry every 250 ms. The variants
   * sweep the delay D over 0, 50, 250 and 1,000 ms: what a router cannot see is the other routers'
   * traffic since the report, and it grows with D. 500 ms TTFT objective, 3,000 requests.
   */
  static Scenario staleTelemetry() {
    return Scenario.newBuilder()
        .name("stale-telemetry")
        .description("3 routers, 6 replicas, bursty " + rate(STALE_TELEMETRY_RPS) + "-"
            + rate(2.25 * STALE_TELEMETRY_RPS) + " req/s with shared prefixes; telemetry delay"
            + " swept over 0/50/250/1000 ms")
        .workload(new SyntheticWorkload(
            ArrivalProcess.bursty(STALE_TELEMETRY_RPS, 2.25 * STALE_TELEMETRY_RPS,
                6 * 40 / STALE_TELEMETRY_RPS, 2 * 40 / STALE_TELEMETRY_RPS),
            Shapes.tenants(new int[] {2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000,
                1_500, 1_500, 1_500, 1_500, 1_000, 1_000, 1_000, 1_000}, 32, 512, 16, 128)))
        .replicas(6)
        .routers(3)
        .kvCapacityTokens(32_768)
        .telemetryIntervalMillis(250)
        .telemetryDelayMillis(250)
        .telemetryDelaySweepMillis(List.of(0L, 50L, 250L, 1_000L))
        .requests(3_000)
        .ttftSloMillis(500)
        .build();
  }

  /**
   * {@code overload}: Poisson {@value #OVERLOAD_RPS} req/s of unique prompts (log-normal, median
   * 1,500 tokens, clipped to 100-10,000) onto 4 replicas, well above what they can serve; half the
   * requests are INTERACTIVE with a 1 s TTFT budget, a fifth BATCH without one, the rest STANDARD
   * with 4 s. Admission decides who is served in time. 1 s TTFT objective, 2,000 requests.
   */
  static Scenario overload() {
    return Scenario.newBuilder()
        .name("overload")
        .description("Poisson " + rate(OVERLOAD_RPS) + " req/s above the capacity of 4 replicas,"
            + " with TTFT budgets and priorities: admission matters")
        .workload(new SyntheticWorkload(ArrivalProcess.poisson(OVERLOAD_RPS),
            Shapes.withDeadlines(Shapes.mixedSizes(1_500, 1.0, 100, 10_000, 150, 1.0, 10, 1_000),
                0.5, Duration.ofMillis(1_000), 0.2, Duration.ofMillis(4_000))))
        .replicas(4)
        .requests(2_000)
        .ttftSloMillis(1_000)
        .build();
  }

  /**
   * {@code replica-crash}: {@link #multiTenant()} where replica-0 crashes at 20 s: its running and
   * queued requests fail ("replica crashed"; the simulated host retries each once elsewhere), and
   * it restarts cold (a new epoch, an empty cache) after the engine's 30 s cold start.
   */
  static Scenario replicaCrash() {
    return multiTenant().toBuilder()
        .name("replica-crash")
        .description("multi-tenant; replica-0 crashes at 20 s mid-stream (in-flight work fails,"
            + " retried once) and restarts cold after 30 s with a new epoch")
        .restarts(List.of(new Scenario.Restart(FAULT_AT_MILLIS, 0)))
        .build();
  }

  /**
   * {@code stale-epoch-replay}: {@link #multiTenant()} under {@code vllm-kv-events} telemetry where
   * replica-1 crashes at 20 s, and 31 s later, once the new process serves, the dead process's last report (READY) and its last KV event batch
   * arrive again: a router that let them revive the old epoch would route into a dead process.
   */
  static Scenario staleEpochReplay() {
    return multiTenant().toBuilder()
        .name("stale-epoch-replay")
        .description("multi-tenant under vllm-kv-events; replica-1 crashes at 20 s, and its dead"
            + " epoch's last report and KV events arrive again 31 s later, after the restart")
        .telemetry(TelemetryProfile.VLLM_KV_EVENTS)
        .restarts(List.of(new Scenario.Restart(FAULT_AT_MILLIS, 1)))
        .faults(Faults.NONE.withStaleReplay(31_000))
        .build();
  }

  /**
   * {@code telemetry-blackout}: {@link #multiTenant()} where replica-0 and replica-1 keep serving but
   * their reports stop for 10 s from 20 s: the routers work from ever older reports plus their own
   * books.
   */
  static Scenario telemetryBlackout() {
    return multiTenant().toBuilder()
        .name("telemetry-blackout")
        .description("multi-tenant; reports from replica-0 and replica-1 stop for 10 s at 20 s"
            + " (they keep serving)")
        .faults(Faults.NONE.withBlackout(0, FAULT_AT_MILLIS, FAULT_AT_MILLIS + 10_000)
            .withBlackout(1, FAULT_AT_MILLIS, FAULT_AT_MILLIS + 10_000))
        .build();
  }

  /**
   * {@code event-gap}: {@link #multiTenant()} under {@code vllm-kv-events} telemetry where each KV
   * event batch is lost with probability {@value #EVENT_GAP_BATCH_LOSS}. The events are numbered,
   * so the routers see each gap: that replica's index falls back to approximate mode, and (the
   * simulated engines never clear their caches while running) stays there until the run ends.
   */
  static Scenario eventGap() {
    return multiTenant().toBuilder()
        .name("event-gap")
        .description("multi-tenant under vllm-kv-events; " + EVENT_GAP_BATCH_LOSS * 100
            + "% of KV event batches are lost (numbered: routers see the gaps)")
        .telemetry(TelemetryProfile.VLLM_KV_EVENTS)
        .faults(Faults.NONE.withKvEventBatchLoss(EVENT_GAP_BATCH_LOSS))
        .build();
  }

  /**
   * {@code slow-replica}: {@link #multiTenant()} where replica-0's steps all take 5 times longer
   * (a throttled GPU); its reports are what the profile reports, nothing says it is slow.
   */
  static Scenario slowReplica() {
    return multiTenant().toBuilder()
        .name("slow-replica")
        .description("multi-tenant; replica-0 is 5x slower in every step, its telemetry unchanged")
        .faults(Faults.NONE.withSlowReplica(0, 5))
        .build();
  }

  /**
   * {@code overload-3x}: {@link #overload()} at three times its rate ({@value #OVERLOAD_RPS} x 3
   * req/s): admission has to turn most of the traffic away, with a reason each.
   */
  static Scenario overload3x() {
    return overload().toBuilder()
        .name("overload-3x")
        .description("overload at 3x its rate (" + rate(3 * OVERLOAD_RPS) + " req/s): most"
            + " requests must be rejected, each with a reason")
        .workload(new SyntheticWorkload(ArrivalProcess.poisson(3 * OVERLOAD_RPS),
            Shapes.withDeadlines(Shapes.mixedSizes(1_500, 1.0, 100, 10_000, 150, 1.0, 10, 1_000),
                0.5, Duration.ofMillis(1_000), 0.2, Duration.ofMillis(4_000))))
        .build();
  }
}
