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

/**
 * The inputs {@link AbsurdArbitraries} generates: requests, replica reports, KV events and outcomes
 * described field by field, possibly with absurd values, so that {@code build()} makes the builder
 * calls and throws what the builder throws for the first bad value. Huge strings and arrays print by
 * size, so that failure reports stay readable.
 *
 * <p>Thread-safety: immutable values (their arrays are never modified after generation).
 */
public final class AbsurdInputs {
  private static final CacheNamespace NAMESPACE = CacheNamespace.of(KvrouteArbitraries.MODEL);

  private AbsurdInputs() {}

  /** How a request's prompt is keyed. */
  public sealed interface PromptInput {
    /**
     * Builds the prompt key in the model's namespace; throws what the factory throws for a bad
     * value.
     *
     * @return the key
     */
    PromptKey build();

    /**
     * A prompt given as token ids ({@link PromptKey#ofTokens}).
     *
     * @param tokens the token ids, possibly empty or huge
     */
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

    /**
     * A prompt given as text ({@link PromptKey#ofText}).
     *
     * @param text the text, possibly empty or huge
     */
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

    /**
     * A prompt given as engine block hashes ({@link PromptKey#ofBlockHashes}), in the default block
     * size.
     *
     * @param hashes the block hashes, possibly more than {@code tokenCount} covers
     * @param tokenCount the prompt's length in tokens, possibly negative
     */
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

    /**
     * A prompt with a length and no identity ({@link PromptKey#unhashed}).
     *
     * @param tokenCount the prompt's length in tokens, possibly negative
     */
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

    /**
     * Builds it; throws what the builder throws for the first bad value.
     *
     * @return the request
     */
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

    /**
     * The same input with the id made unique by {@code suffix} (when the id is not absurd).
     *
     * @param suffix appended to the default id {@code req}, as {@code req-suffix}
     * @return the renumbered input, or this one when its id is fuzzed
     */
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

    /**
     * Builds it; throws what the builder throws for the first bad value.
     *
     * @return the report
     */
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
    /**
     * Builds it; throws what the factory throws for a bad value.
     *
     * @return the event
     */
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

    /**
     * Builds the outcome of {@code request} routed by {@code decision}; throws for a bad value.
     *
     * @param request the request routed
     * @param decision its routed decision
     * @return the outcome, with the fuzzed attempt, replica and epoch where set
     */
    public Outcome build(Request request, RoutingDecision decision) {
      return build(request.id(), request.attempt(), decision.replicaId(), decision.epoch());
    }

    /**
     * Builds the outcome of an attempt routed to {@code routedReplica}; throws for a bad value.
     *
     * @param requestId the request's id
     * @param routedAttempt the attempt routed, used unless a fuzzed one is set
     * @param routedReplica the replica routed to, used unless a fuzzed one is set
     * @param routedEpoch the epoch routed at, used unless a fuzzed one is set
     * @return the outcome
     */
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
