package io.github.kvroute.testkit;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.testkit.AbsurdInputs.KvEventInput;
import io.github.kvroute.testkit.AbsurdInputs.OutcomeInput;
import io.github.kvroute.testkit.AbsurdInputs.PromptInput;
import io.github.kvroute.testkit.AbsurdInputs.RequestInput;
import io.github.kvroute.testkit.AbsurdInputs.SnapshotInput;
import java.time.Duration;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Builders;
import net.jqwik.api.Tuple;

/**
 * jqwik {@link Arbitrary} factories for fuzzing: boundary and absurd values ({@code Long.MAX_VALUE}
 * and {@code MIN_VALUE}, NaN, infinities, subnormals, durations of centuries, empty and huge strings,
 * unknown replicas, absurd epochs) mixed with ordinary ones, and {@link AbsurdInputs} (requests,
 * reports, KV events, outcomes) built from them. Unlike {@link KvrouteArbitraries}, whose values are
 * all valid, an input here may not build: {@code build()} then throws, and the contract a fuzz test
 * checks is that it throws a clear {@code name: value (expected: ...)} error, and that a router
 * answers everything that does build with a value, never a corrupted state.
 *
 * <pre>{@code
 * @Property
 * void reportsNeverCorrupt(@ForAll("reports") SnapshotInput input) { ... }
 *
 * @Provide
 * Arbitrary<SnapshotInput> reports() { return AbsurdArbitraries.snapshots(); }
 * }</pre>
 *
 * <p>Replica ids are mostly {@code replica-0} to {@code replica-2} (a fleet a test sets up), sometimes
 * unknown or absurd. Prompts are hashed in {@link KvrouteArbitraries#MODEL}'s namespace.
 *
 * <p>Thread-safety: the factories are stateless; arbitraries are jqwik's; the inputs are immutable.
 */
public final class AbsurdArbitraries {
  /** Replicas {@code replica-0 .. replica-(FLEET-1)} are the ones a fuzz test's fleet knows. */
  public static final int FLEET = 3;
  /** Characters in the huge strings. */
  public static final int HUGE_STRING = 100_000;
  /** Keys in a huge KV event. */
  public static final int HUGE_EVENT = 50_000;

  private AbsurdArbitraries() {}

  /** {@return longs: the extremes and their neighbours, 0 and ±1, small values, anything} */
  public static Arbitrary<Long> longs() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L,
            Long.MAX_VALUE - 1, Long.MAX_VALUE, (long) Integer.MAX_VALUE + 1, 1L << 62)),
        Tuple.of(3, Arbitraries.longs().between(0, 10_000)),
        Tuple.of(1, Arbitraries.longs()));
  }

  /** {@return ints: the extremes and their neighbours, 0 and ±1, small values, anything} */
  public static Arbitrary<Integer> ints() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of(Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -1, 0, 1,
            Integer.MAX_VALUE - 1, Integer.MAX_VALUE)),
        Tuple.of(3, Arbitraries.integers().between(0, 4_096)),
        Tuple.of(1, Arbitraries.integers()));
  }

  /**
   * {@return doubles: NaN, ±infinity, ±0, subnormals, the largest, negatives, ordinary rates and
   * times}
   */
  public static Arbitrary<Double> doubles() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
            0.0, -0.0, Double.MIN_VALUE, 1e-310, Double.MIN_NORMAL, Double.MAX_VALUE, -1.0, 1e300)),
        Tuple.of(3, Arbitraries.doubles().between(0.01, 100_000)));
  }

  /**
   * {@return durations: zero, a nanosecond, negative, three centuries, the largest and smallest,
   * ordinary}
   */
  public static Arbitrary<Duration> durations() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of(Duration.ZERO, Duration.ofNanos(1), Duration.ofMillis(-1),
            Duration.ofDays(300L * 365), Duration.ofSeconds(Long.MAX_VALUE, 999_999_999),
            Duration.ofSeconds(Long.MIN_VALUE), Duration.ofNanos(Long.MAX_VALUE),
            Duration.ofMillis(Long.MAX_VALUE))),
        Tuple.of(3, Arbitraries.longs().between(0, 60_000).map(Duration::ofMillis)));
  }

  /** {@return strings: empty, blank, control characters, non-BMP text, huge, ordinary ids} */
  public static Arbitrary<String> strings() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of("", " ", "\t\n", "\u0000", "\uD83D\uDE00-\u202E-id",
            "a:b (expected: c)", "x".repeat(HUGE_STRING))),
        Tuple.of(3, Arbitraries.strings().alpha().numeric().withChars('-', '_').ofMinLength(1)
            .ofMaxLength(12)));
  }

  /** {@return replica ids: mostly the fleet's, sometimes unknown ones, sometimes absurd strings} */
  public static Arbitrary<String> replicaIds() {
    return Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.integers().between(0, FLEET - 1).map(i -> "replica-" + i)),
        Tuple.of(2, Arbitraries.integers().between(0, 1_000).map(i -> "unknown-" + i)),
        Tuple.of(1, strings()));
  }

  /** {@return epochs: mostly 0 to 3, sometimes absurd} */
  public static Arbitrary<Long> epochs() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.longs().between(0, 3)), Tuple.of(1, longs()));
  }

  /** {@return a request to build; see {@link RequestInput#build()}} */
  public static Arbitrary<RequestInput> requests() {
    Arbitrary<PromptInput> prompts = Arbitraries.frequencyOf(
        Tuple.of(4, Arbitraries.integers().between(0, 4_000).array(int[].class).ofMaxSize(300)
            .map(t -> (PromptInput) new PromptInput.Tokens(t))),
        Tuple.of(1, ints().array(int[].class).ofMaxSize(64)
            .map(t -> (PromptInput) new PromptInput.Tokens(t))),
        Tuple.of(1, strings().map(s -> (PromptInput) new PromptInput.Text(s))),
        Tuple.of(1, longs().array(long[].class).ofMaxSize(40).flatMap(h -> ints()
            .map(n -> (PromptInput) new PromptInput.Hashes(h, n)))),
        Tuple.of(1, ints().map(n -> (PromptInput) new PromptInput.Unhashed(n))));
    return Builders.withBuilder(RequestInput::ordinary)
        .use(strings()).withProbability(0.2).in(RequestInput::withId)
        .use(ints()).withProbability(0.2).in(RequestInput::withAttempt)
        .use(strings()).withProbability(0.1).in(RequestInput::withModel)
        .use(strings()).withProbability(0.2).in(RequestInput::withSession)
        .use(ints()).withProbability(0.3).in(RequestInput::withMaxOutput)
        .use(ints()).withProbability(0.2).in(RequestInput::withExpectedOutput)
        .use(durations()).withProbability(0.3).in(RequestInput::withTtftBudget)
        .use(durations()).withProbability(0.3).in(RequestInput::withUpstream)
        .use(longs()).withProbability(0.2).in(RequestInput::withArrival)
        .use(prompts).in(RequestInput::withPrompt)
        .build();
  }

  /** {@return a replica report to build; see {@link SnapshotInput#build()}} */
  public static Arbitrary<SnapshotInput> snapshots() {
    return Builders.withBuilder(() -> new SnapshotInput("replica-0", 0, null, ReplicaState.READY,
            new long[12], new double[3], 0))
        .use(replicaIds()).in(SnapshotInput::withReplica)
        .use(epochs()).in(SnapshotInput::withEpoch)
        .use(longs()).withProbability(0.3).in(SnapshotInput::withObservedAt)
        .use(Arbitraries.of(ReplicaState.class)).in(SnapshotInput::withState)
        .use(longs().array(long[].class).ofSize(SnapshotInput.LONGS)).in(SnapshotInput::withLongs)
        .use(doubles().array(double[].class).ofSize(3)).in(SnapshotInput::withDoubles)
        .use(Arbitraries.integers().between(0, (1 << SnapshotInput.FIELDS) - 1))
        .in(SnapshotInput::withPresent)
        .build();
  }

  /**
   * {@return a KV event to build: any type, any replica and epoch, no keys to {@value #HUGE_EVENT}
   * keys}
   */
  public static Arbitrary<KvEventInput> kvEvents() {
    Arbitrary<long[]> keys = Arbitraries.frequencyOf(
        Tuple.of(8, longs().array(long[].class).ofMaxSize(64)),
        Tuple.of(1, Arbitraries.just(0).map(x -> hugeKeys())));
    return Builders
        .withBuilder(() -> new KvEventInput(KvEvent.Type.STORED, "replica-0", 0, new long[0]))
        .use(Arbitraries.of(KvEvent.Type.class)).in(KvEventInput::withType)
        .use(replicaIds()).in(KvEventInput::withReplica)
        .use(epochs()).in(KvEventInput::withEpoch)
        .use(keys).in(KvEventInput::withKeys)
        .build();
  }

  /**
   * {@return an outcome to build for an earlier routed attempt (or none); see
   * {@link OutcomeInput#build}}
   */
  public static Arbitrary<OutcomeInput> outcomes() {
    return Builders.withBuilder(() -> new OutcomeInput(0, null, null, null, OutcomeStatus.SUCCESS,
            null, null, null, null))
        .use(Arbitraries.integers().between(0, 1_000)).in(OutcomeInput::withRoute)
        .use(ints()).withProbability(0.1).in(OutcomeInput::withAttempt)
        .use(replicaIds()).withProbability(0.15).in(OutcomeInput::withReplica)
        .use(epochs()).withProbability(0.15).in(OutcomeInput::withEpoch)
        .use(Arbitraries.of(OutcomeStatus.class)).in(OutcomeInput::withStatus)
        .use(durations()).withProbability(0.4).in(OutcomeInput::withQueueTime)
        .use(durations()).withProbability(0.5).in(OutcomeInput::withTtft)
        .use(ints()).withProbability(0.4).in(OutcomeInput::withCachedTokens)
        .use(ints()).withProbability(0.3).in(OutcomeInput::withOutputTokens)
        .build();
  }

  private static long[] hugeKeys() {
    long[] k = new long[HUGE_EVENT];
    Arrays.setAll(k, i -> i * 0x9E3779B97F4A7C15L);
    return k;
  }

}
