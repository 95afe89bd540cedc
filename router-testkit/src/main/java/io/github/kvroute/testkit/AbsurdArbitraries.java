package io.github.kvroute.testkit;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import java.time.Duration;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Builders;
import net.jqwik.api.Tuple;

/**
 * jqwik {@link Arbitrary} factories for fuzzing: boundary and absurd values ({@code Long.MAX_VALUE} and
 * {@code MIN_VALUE}, NaN, infinities, subnormals, durations of centuries, empty and huge strings,
 * unknown replicas, absurd epochs) mixed with ordinary ones, and <em>inputs</em> (requests, reports, KV
 * events, outcomes) built from them. Unlike {@link KvrouteArbitraries}, whose values are all valid, an
 * input here may not build: {@code build()} then throws, and the contract a fuzz test checks is that it
 * throws a clear {@code name: value (expected: ...)} error, and that a router answers everything that
 * does build with a value, never a corrupted state.
 *
 * <pre>{@code
 * @Property
 * void reportsNeverCorrupt(@ForAll("reports") AbsurdArbitraries.SnapshotInput input) { ... }
 *
 * @Provide
 * Arbitrary<AbsurdArbitraries.SnapshotInput> reports() { return AbsurdArbitraries.snapshots(); }
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

  private static final CacheNamespace NAMESPACE = CacheNamespace.of(KvrouteArbitraries.MODEL);

  private AbsurdArbitraries() {}

  /** Longs: the extremes and their neighbours, 0 and ±1, small values, anything. */
  public static Arbitrary<Long> longs() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L,
            Long.MAX_VALUE - 1, Long.MAX_VALUE, (long) Integer.MAX_VALUE + 1, 1L << 62)),
        Tuple.of(3, Arbitraries.longs().between(0, 10_000)),
        Tuple.of(1, Arbitraries.longs()));
  }

  /** Ints: the extremes and their neighbours, 0 and ±1, small values, anything. */
  public static Arbitrary<Integer> ints() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of(Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -1, 0, 1,
            Integer.MAX_VALUE - 1, Integer.MAX_VALUE)),
        Tuple.of(3, Arbitraries.integers().between(0, 4_096)),
        Tuple.of(1, Arbitraries.integers()));
  }

  /** Doubles: NaN, ±infinity, ±0, subnormals, the largest, negatives, ordinary rates and times. */
  public static Arbitrary<Double> doubles() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
            0.0, -0.0, Double.MIN_VALUE, 1e-310, Double.MIN_NORMAL, Double.MAX_VALUE, -1.0, 1e300)),
        Tuple.of(3, Arbitraries.doubles().between(0.01, 100_000)));
  }

  /** Durations: zero, a nanosecond, negative, three centuries, the largest and smallest, ordinary. */
  public static Arbitrary<Duration> durations() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of(Duration.ZERO, Duration.ofNanos(1), Duration.ofMillis(-1),
            Duration.ofDays(300L * 365), Duration.ofSeconds(Long.MAX_VALUE, 999_999_999),
            Duration.ofSeconds(Long.MIN_VALUE), Duration.ofNanos(Long.MAX_VALUE),
            Duration.ofMillis(Long.MAX_VALUE))),
        Tuple.of(3, Arbitraries.longs().between(0, 60_000).map(Duration::ofMillis)));
  }

  /** Strings: empty, blank, control characters, non-BMP text, huge, ordinary ids. */
  public static Arbitrary<String> strings() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of("", " ", "\t\n", "\u0000", "\uD83D\uDE00-\u202E-id", "a:b (expected: c)",
            "x".repeat(HUGE_STRING))),
        Tuple.of(3, Arbitraries.strings().alpha().numeric().withChars('-', '_').ofMinLength(1)
            .ofMaxLength(12)));
  }

  /** Replica ids: mostly the fleet's, sometimes unknown ones, sometimes absurd strings. */
  public static Arbitrary<String> replicaIds() {
    return Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.integers().between(0, FLEET - 1).map(i -> "replica-" + i)),
        Tuple.of(2, Arbitraries.integers().between(0, 1_000).map(i -> "unknown-" + i)),
        Tuple.of(1, strings()));
  }

  /** Epochs: mostly 0 to 3, sometimes absurd. */
  public static Arbitrary<Long> epochs() {
    return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.longs().between(0, 3)), Tuple.of(1, longs()));
  }

  /** A request to build; see {@link RequestInput#build()}. */
  public static Arbitrary<RequestInput> requests() {
    Arbitrary<PromptInput> prompts = Arbitraries.frequencyOf(
        Tuple.of(4, Arbitraries.integers().between(0, 4_000).array(int[].class).ofMaxSize(300)
            .map(t -> (PromptInput) new PromptInput.Tokens(t))),
        Tuple.of(1, ints().array(int[].class).ofMaxSize(64).map(t -> (PromptInput) new PromptInput.Tokens(t))),
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

  /** A replica report to build; see {@link SnapshotInput#build()}. */
  public static Arbitrary<SnapshotInput> snapshots() {
    return Builders.withBuilder(() -> new SnapshotInput("replica-0", 0, null, ReplicaState.READY,
            new long[12], new double[3], 0))
        .use(replicaIds()).in(SnapshotInput::withReplica)
        .use(epochs()).in(SnapshotInput::withEpoch)
        .use(longs()).withProbability(0.3).in(SnapshotInput::withObservedAt)
        .use(Arbitraries.of(ReplicaState.class)).in(SnapshotInput::withState)
        .use(longs().array(long[].class).ofSize(SnapshotInput.LONGS)).in(SnapshotInput::withLongs)
        .use(doubles().array(double[].class).ofSize(3)).in(SnapshotInput::withDoubles)
        .use(Arbitraries.integers().between(0, (1 << SnapshotInput.FIELDS) - 1)).in(SnapshotInput::withPresent)
        .build();
  }

  /** A KV event to build: any type, any replica and epoch, no keys to {@value #HUGE_EVENT} keys. */
  public static Arbitrary<KvEventInput> kvEvents() {
    Arbitrary<long[]> keys = Arbitraries.frequencyOf(
        Tuple.of(8, longs().array(long[].class).ofMaxSize(64)),
        Tuple.of(1, Arbitraries.just(0).map(x -> hugeKeys())));
    return Builders.withBuilder(() -> new KvEventInput(KvEvent.Type.STORED, "replica-0", 0, new long[0]))
        .use(Arbitraries.of(KvEvent.Type.class)).in(KvEventInput::withType)
        .use(replicaIds()).in(KvEventInput::withReplica)
        .use(epochs()).in(KvEventInput::withEpoch)
        .use(keys).in(KvEventInput::withKeys)
        .build();
  }

  /** An outcome to build for an earlier routed attempt (or none); see {@link OutcomeInput#build}. */
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

  /** How a request's prompt is keyed. */
  public sealed interface PromptInput {
    PromptKey build();

    record Tokens(int[] tokens) implements PromptInput {
      @Override
      public PromptKey build() {
        return PromptKey.ofTokens(tokens, NAMESPACE);
      }

      @Override
      public String toString() {
        return "Tokens[" + tokens.length + " tokens]";
      }
    }

    record Text(String text) implements PromptInput {
      @Override
      public PromptKey build() {
        return PromptKey.ofText(text, NAMESPACE);
      }

      @Override
      public String toString() {
        return "Text[" + text.length() + " chars]";
      }
    }

    record Hashes(long[] hashes, int tokenCount) implements PromptInput {
      @Override
      public PromptKey build() {
        return PromptKey.ofBlockHashes(hashes, PromptKey.DEFAULT_BLOCK_SIZE_TOKENS, tokenCount, NAMESPACE);
      }

      @Override
      public String toString() {
        return "Hashes[" + Arrays.toString(hashes) + ", tokenCount=" + tokenCount + "]";
      }
    }

    record Unhashed(int tokenCount) implements PromptInput {
      @Override
      public PromptKey build() {
        return PromptKey.unhashed(tokenCount);
      }
    }
  }

  /**
   * A request: ordinary fields unless a fuzzed one replaced them (a null keeps the option unset).
   * {@link #build()} makes the builder calls in order; the first bad value throws.
   */
  public record RequestInput(String id, Integer attempt, String model, String session,
      Integer maxOutputTokens, Integer expectedOutputTokens, Duration ttftBudget,
      Duration upstreamElapsed, Long arrivalNanos, PromptInput prompt) {

    static RequestInput ordinary() {
      return new RequestInput("req", null, KvrouteArbitraries.MODEL, null, null, null, null, null,
          null, new PromptInput.Unhashed(64));
    }

    /** Builds it; throws what the builder throws for the first bad value. */
    public Request build() {
      Request.Builder b = Request.newBuilder().id(id).model(model).prompt(prompt.build());
      if (attempt != null) {
        b.attempt(attempt);
      }
      if (session != null) {
        b.sessionId(session);
      }
      if (maxOutputTokens != null) {
        b.maxOutputTokens(maxOutputTokens);
      }
      if (expectedOutputTokens != null) {
        b.expectedOutputTokens(expectedOutputTokens);
      }
      if (ttftBudget != null) {
        b.ttftBudget(ttftBudget);
      }
      if (upstreamElapsed != null) {
        b.upstreamElapsed(upstreamElapsed);
      }
      if (arrivalNanos != null) {
        b.arrivalNanos(arrivalNanos);
      }
      return b.build();
    }

    /** The same input with the id made unique by {@code suffix} (when the id is not absurd). */
    public RequestInput numbered(int suffix) {
      return id.equals("req") ? withId("req-" + suffix) : this;
    }

    RequestInput withId(String v) {
      return new RequestInput(v, attempt, model, session, maxOutputTokens, expectedOutputTokens,
          ttftBudget, upstreamElapsed, arrivalNanos, prompt);
    }

    RequestInput withAttempt(Integer v) {
      return new RequestInput(id, v, model, session, maxOutputTokens, expectedOutputTokens,
          ttftBudget, upstreamElapsed, arrivalNanos, prompt);
    }

    RequestInput withModel(String v) {
      return new RequestInput(id, attempt, v, session, maxOutputTokens, expectedOutputTokens,
          ttftBudget, upstreamElapsed, arrivalNanos, prompt);
    }

    RequestInput withSession(String v) {
      return new RequestInput(id, attempt, model, v, maxOutputTokens, expectedOutputTokens,
          ttftBudget, upstreamElapsed, arrivalNanos, prompt);
    }

    RequestInput withMaxOutput(Integer v) {
      return new RequestInput(id, attempt, model, session, v, expectedOutputTokens, ttftBudget,
          upstreamElapsed, arrivalNanos, prompt);
    }

    RequestInput withExpectedOutput(Integer v) {
      return new RequestInput(id, attempt, model, session, maxOutputTokens, v, ttftBudget,
          upstreamElapsed, arrivalNanos, prompt);
    }

    RequestInput withTtftBudget(Duration v) {
      return new RequestInput(id, attempt, model, session, maxOutputTokens, expectedOutputTokens, v,
          upstreamElapsed, arrivalNanos, prompt);
    }

    RequestInput withUpstream(Duration v) {
      return new RequestInput(id, attempt, model, session, maxOutputTokens, expectedOutputTokens,
          ttftBudget, v, arrivalNanos, prompt);
    }

    RequestInput withArrival(Long v) {
      return new RequestInput(id, attempt, model, session, maxOutputTokens, expectedOutputTokens,
          ttftBudget, upstreamElapsed, v, prompt);
    }

    RequestInput withPrompt(PromptInput v) {
      return new RequestInput(id, attempt, model, session, maxOutputTokens, expectedOutputTokens,
          ttftBudget, upstreamElapsed, arrivalNanos, v);
    }

    @Override
    public String toString() {
      return "RequestInput[id=" + brief(id) + ", attempt=" + attempt + ", model=" + brief(model)
          + ", session=" + brief(session) + ", maxOut=" + maxOutputTokens + ", expectedOut="
          + expectedOutputTokens + ", ttftBudget=" + ttftBudget + ", upstream=" + upstreamElapsed
          + ", arrival=" + arrivalNanos + ", prompt=" + prompt + "]";
    }
  }

  /**
   * A replica report. {@code longs} holds, in order: waiting, running, queued prefill tokens,
   * outstanding decode tokens, KV blocks used, KV blocks total, KV block size, requests received
   * (ints narrowed); {@code doubles}: prefill tokens/s, decode step ms, queue delay ms;
   * {@code present} has one bit per optional field (the 8 longs then the 3 doubles) saying whether it
   * is set.
   */
  public record SnapshotInput(String replicaId, long epoch, Long observedAtNanos, ReplicaState state,
      long[] longs, double[] doubles, int present) {
    static final int LONGS = 8;
    static final int FIELDS = LONGS + 3;

    /** Builds it; throws what the builder throws for the first bad value. */
    public ReplicaSnapshot build() {
      ReplicaSnapshot.Builder b = ReplicaSnapshot.newBuilder().replicaId(replicaId).epoch(epoch)
          .state(state).model(KvrouteArbitraries.MODEL);
      if (observedAtNanos != null) {
        b.observedAtNanos(observedAtNanos);
      }
      if (has(0)) {
        b.waitingRequests((int) longs[0]);
      }
      if (has(1)) {
        b.runningRequests((int) longs[1]);
      }
      if (has(2)) {
        b.queuedPrefillTokens(longs[2]);
      }
      if (has(3)) {
        b.outstandingDecodeTokens(longs[3]);
      }
      if (has(4) || has(5)) {
        b.kvBlocks(longs[4], longs[5]);
      }
      if (has(6)) {
        b.kvBlockSizeTokens((int) longs[6]);
      }
      if (has(7)) {
        b.requestsReceivedTotal(longs[7]);
      }
      if (has(8)) {
        b.prefillTokensPerSecond(doubles[0]);
      }
      if (has(9)) {
        b.decodeStepMillis(doubles[1]);
      }
      if (has(10)) {
        b.estimatedQueueDelayMillis(doubles[2]);
      }
      return b.build();
    }

    private boolean has(int field) {
      return (present & (1 << field)) != 0;
    }

    SnapshotInput withReplica(String v) {
      return new SnapshotInput(v, epoch, observedAtNanos, state, longs, doubles, present);
    }

    SnapshotInput withEpoch(Long v) {
      return new SnapshotInput(replicaId, v, observedAtNanos, state, longs, doubles, present);
    }

    SnapshotInput withObservedAt(Long v) {
      return new SnapshotInput(replicaId, epoch, v, state, longs, doubles, present);
    }

    SnapshotInput withState(ReplicaState v) {
      return new SnapshotInput(replicaId, epoch, observedAtNanos, v, longs, doubles, present);
    }

    SnapshotInput withLongs(long[] v) {
      return new SnapshotInput(replicaId, epoch, observedAtNanos, state, v, doubles, present);
    }

    SnapshotInput withDoubles(double[] v) {
      return new SnapshotInput(replicaId, epoch, observedAtNanos, state, longs, v, present);
    }

    SnapshotInput withPresent(Integer v) {
      return new SnapshotInput(replicaId, epoch, observedAtNanos, state, longs, doubles, v);
    }

    @Override
    public String toString() {
      return "SnapshotInput[" + brief(replicaId) + "#" + epoch + " " + state + ", observedAt="
          + observedAtNanos + ", longs=" + Arrays.toString(longs) + ", doubles="
          + Arrays.toString(doubles) + ", present=" + Integer.toBinaryString(present) + "]";
    }
  }

  /** A KV event. */
  public record KvEventInput(KvEvent.Type type, String replicaId, long epoch, long[] keys) {
    /** Builds it; throws what the factory throws for a bad value. */
    public KvEvent build() {
      return switch (type) {
        case STORED -> KvEvent.stored(replicaId, epoch, keys);
        case REMOVED -> KvEvent.removed(replicaId, epoch, keys);
        case CLEARED -> KvEvent.cleared(replicaId, epoch);
      };
    }

    KvEventInput withType(KvEvent.Type v) {
      return new KvEventInput(v, replicaId, epoch, keys);
    }

    KvEventInput withReplica(String v) {
      return new KvEventInput(type, v, epoch, keys);
    }

    KvEventInput withEpoch(Long v) {
      return new KvEventInput(type, replicaId, v, keys);
    }

    KvEventInput withKeys(long[] v) {
      return new KvEventInput(type, replicaId, epoch, v);
    }

    @Override
    public String toString() {
      return "KvEventInput[" + type + " " + brief(replicaId) + "#" + epoch + ", " + keys.length
          + " keys" + (keys.length <= 8 ? " " + Arrays.toString(keys) : "") + "]";
    }
  }

  /**
   * An outcome for routed attempt number {@code route} (modulo those routed so far), with the
   * attempt, replica and epoch of its decision unless fuzzed ones replace them.
   */
  public record OutcomeInput(int route, Integer attempt, String replicaId, Long epoch,
      OutcomeStatus status, Duration queueTime, Duration ttft, Integer cachedTokens,
      Integer outputTokens) {

    /** Builds the outcome of {@code request} routed by {@code decision}; throws for a bad value. */
    public Outcome build(Request request, RoutingDecision decision) {
      return build(request.id(), request.attempt(), decision.replicaId(), decision.epoch());
    }

    /** Builds the outcome of an attempt routed to {@code routedReplica}; throws for a bad value. */
    public Outcome build(String requestId, int routedAttempt, String routedReplica, long routedEpoch) {
      Outcome.Builder b = Outcome.newBuilder().requestId(requestId)
          .attempt(attempt != null ? attempt : routedAttempt)
          .replicaId(replicaId != null ? replicaId : routedReplica)
          .epoch(epoch != null ? epoch : routedEpoch).status(status);
      if (queueTime != null) {
        b.queueTime(queueTime);
      }
      if (ttft != null) {
        b.ttft(ttft);
      }
      if (cachedTokens != null) {
        b.cachedTokens(cachedTokens);
      }
      if (outputTokens != null) {
        b.outputTokens(outputTokens);
      }
      return b.build();
    }

    OutcomeInput withRoute(Integer v) {
      return new OutcomeInput(v, attempt, replicaId, epoch, status, queueTime, ttft, cachedTokens,
          outputTokens);
    }

    OutcomeInput withAttempt(Integer v) {
      return new OutcomeInput(route, v, replicaId, epoch, status, queueTime, ttft, cachedTokens,
          outputTokens);
    }

    OutcomeInput withReplica(String v) {
      return new OutcomeInput(route, attempt, v, epoch, status, queueTime, ttft, cachedTokens,
          outputTokens);
    }

    OutcomeInput withEpoch(Long v) {
      return new OutcomeInput(route, attempt, replicaId, v, status, queueTime, ttft, cachedTokens,
          outputTokens);
    }

    OutcomeInput withStatus(OutcomeStatus v) {
      return new OutcomeInput(route, attempt, replicaId, epoch, v, queueTime, ttft, cachedTokens,
          outputTokens);
    }

    OutcomeInput withQueueTime(Duration v) {
      return new OutcomeInput(route, attempt, replicaId, epoch, status, v, ttft, cachedTokens,
          outputTokens);
    }

    OutcomeInput withTtft(Duration v) {
      return new OutcomeInput(route, attempt, replicaId, epoch, status, queueTime, v, cachedTokens,
          outputTokens);
    }

    OutcomeInput withCachedTokens(Integer v) {
      return new OutcomeInput(route, attempt, replicaId, epoch, status, queueTime, ttft, v,
          outputTokens);
    }

    OutcomeInput withOutputTokens(Integer v) {
      return new OutcomeInput(route, attempt, replicaId, epoch, status, queueTime, ttft, cachedTokens,
          v);
    }

    @Override
    public String toString() {
      return "OutcomeInput[route " + route + ", attempt=" + attempt + ", replica=" + brief(replicaId)
          + "#" + epoch + ", " + status + ", queue=" + queueTime + ", ttft=" + ttft + ", cached="
          + cachedTokens + ", output=" + outputTokens + "]";
    }
  }

  /** Huge strings shown by length, so that reports stay readable. */
  static String brief(String s) {
    return s == null || s.length() <= 40 ? (s == null ? null : '"' + s + '"')
        : "\"" + s.substring(0, 8) + "...\" (" + s.length() + " chars)";
  }
}
