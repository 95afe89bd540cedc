package io.github.kvroute.api;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What actually happened to one routed attempt. Reporting it closes the loop: the router releases the
 * attempt's in-flight lease, learns the replica's real prefill speed and how often its cache beliefs
 * hold, and feeds the replica's breaker.
 *
 * <pre>{@code
 * router.onOutcome(Outcome.newBuilder()
 *     .requestId(request.id()).attempt(request.attempt())
 *     .replicaId(decision.replicaId()).epoch(decision.epoch())
 *     .status(OutcomeStatus.SUCCESS)
 *     .cachedTokens(usage.cachedTokens()).ttft(ttft).queueTime(queueTime)
 *     .build());
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class Outcome {
  private final String requestId;
  private final int attempt;
  private final String replicaId;
  private final long epoch;
  private final OutcomeStatus status;
  private final Optional<Duration> queueTime;
  private final OptionalInt cachedTokens;
  private final Optional<Duration> ttft;
  private final Optional<Duration> prefillTime;
  private final OptionalInt outputTokens;

  private Outcome(Builder b) {
    requestId = b.requestId;
    attempt = b.attempt;
    replicaId = b.replicaId;
    epoch = b.epoch;
    status = b.status;
    queueTime = Optional.ofNullable(b.queueTime);
    cachedTokens = b.cachedTokens;
    ttft = Optional.ofNullable(b.ttft);
    prefillTime = Optional.ofNullable(b.prefillTime);
    outputTokens = b.outputTokens;
  }

  /**
   * {@return a new builder; {@code requestId}, {@code replicaId}, {@code epoch} and {@code status}
   * are required}
   */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** {@return the request's id, as in {@link Request#id()}} */
  public String requestId() {
    return requestId;
  }

  /** {@return the attempt this outcome closes (1 for the first try)} */
  public int attempt() {
    return attempt;
  }

  /** {@return the replica the attempt was routed to (the decision's {@code replicaId()})} */
  public String replicaId() {
    return replicaId;
  }

  /** {@return the epoch of the routed decision, which must match the attempt's lease} */
  public long epoch() {
    return epoch;
  }

  /** {@return how the attempt ended} */
  public OutcomeStatus status() {
    return status;
  }

  /** {@return time the request waited in the replica's queue before prefill started} */
  public Optional<Duration> queueTime() {
    return queueTime;
  }

  /**
   * {@return prompt tokens the engine reused from its cache
   * ({@code usage.prompt_tokens_details.cached_tokens})}
   */
  public OptionalInt cachedTokens() {
    return cachedTokens;
  }

  /** {@return time to first token as the replica served it} */
  public Optional<Duration> ttft() {
    return ttft;
  }

  /**
   * {@return a disaggregated attempt's prefill time: from the send to the prefill replica's answer
   * to its prefill request, which excludes the KV transfer and the decode replica's work that the
   * {@link #ttft()} includes} A gateway that runs the two steps itself sees it: vLLM's
   * disaggregated proxy sends the prompt to the prefill instance with {@code max_tokens = 1} and
   * forwards the request to the decode instance when that answers. Empty for a whole-request
   * attempt, whose TTFT is its prefill's.
   */
  public Optional<Duration> prefillTime() {
    return prefillTime;
  }

  /** {@return output tokens the attempt generated; empty when the host did not report them} */
  public OptionalInt outputTokens() {
    return outputTokens;
  }

  /** {@return whether the replica began prefilling (so the prompt's blocks were computed there)} */
  public boolean prefillStarted() {
    return status.isSuccess() || ttft.isPresent() || cachedTokens.isPresent() || queueTime.isPresent()
        || prefillTime.isPresent();
  }

  @Override
  public String toString() {
    return "Outcome{" + requestId + "#" + attempt + " on " + replicaId + "#" + epoch + ": " + status
        + (cachedTokens.isPresent() ? ", cached=" + cachedTokens.getAsInt() : "")
        + ttft.map(t -> ", ttft=" + Checks.millisText(t)).orElse("")
        + prefillTime.map(t -> ", prefill=" + Checks.millisText(t)).orElse("") + "}";
  }

  /** Builds an {@link Outcome}. Not thread-safe; each option may be set once. */
  public static final class Builder {
    /** This builder's options, each set once ({@link Checks#once}). */
    private enum Option {
      REQUEST_ID, ATTEMPT, REPLICA_ID, EPOCH, STATUS, QUEUE_TIME, CACHED_TOKENS, TTFT,
      PREFILL_TIME, OUTPUT_TOKENS
    }

    private long set;
    private String requestId;
    private int attempt = 1;
    private String replicaId;
    private long epoch;
    private OutcomeStatus status;
    private Duration queueTime;
    private OptionalInt cachedTokens = OptionalInt.empty();
    private Duration ttft;
    private Duration prefillTime;
    private OptionalInt outputTokens = OptionalInt.empty();

    private Builder() {}

    /**
     * Required.
     *
     * @param requestId the request's id; not blank
     * @return this builder
     */
    public Builder requestId(String requestId) {
      set = Checks.once(set, Option.REQUEST_ID);
      this.requestId = Checks.notBlank(requestId, "requestId");
      return this;
    }

    /**
     * Defaults to 1.
     *
     * @param attempt the attempt number; {@code >= 1}
     * @return this builder
     */
    public Builder attempt(int attempt) {
      set = Checks.once(set, Option.ATTEMPT);
      this.attempt = Checks.atLeast(attempt, 1, "attempt");
      return this;
    }

    /**
     * Required.
     *
     * @param replicaId the replica routed to; not blank
     * @return this builder
     */
    public Builder replicaId(String replicaId) {
      set = Checks.once(set, Option.REPLICA_ID);
      this.replicaId = Checks.notBlank(replicaId, "replicaId");
      return this;
    }

    /**
     * The epoch of the routed decision ({@code RoutingDecision.epoch()}); required.
     *
     * @param epoch the epoch, in {@code [0, ReplicaSnapshot.MAX_EPOCH]}
     * @return this builder
     */
    public Builder epoch(long epoch) {
      long checked = Checks.epoch(epoch);
      set = Checks.once(set, Option.EPOCH);
      this.epoch = checked;
      return this;
    }

    /**
     * Required.
     *
     * @param status how the attempt ended; not null
     * @return this builder
     */
    public Builder status(OutcomeStatus status) {
      set = Checks.once(set, Option.STATUS);
      this.status = Checks.notNull(status, "status");
      return this;
    }

    /**
     * Sets the time the request waited in the replica's queue; unset means not reported. At build
     * time it must not exceed the TTFT nor the prefill time, when those are set.
     *
     * @param queueTime the wait; not negative
     * @return this builder
     */
    public Builder queueTime(Duration queueTime) {
      set = Checks.once(set, Option.QUEUE_TIME);
      this.queueTime = Checks.nonNegative(queueTime, "queueTime");
      return this;
    }

    /**
     * Sets the prompt tokens the engine reused from its cache; unset means not reported.
     *
     * @param cachedTokens tokens; {@code >= 0}
     * @return this builder
     */
    public Builder cachedTokens(int cachedTokens) {
      set = Checks.once(set, Option.CACHED_TOKENS);
      this.cachedTokens = OptionalInt.of(Checks.atLeast(cachedTokens, 0, "cachedTokens"));
      return this;
    }

    /**
     * Sets the time to first token as the replica served it; unset means not reported.
     *
     * @param ttft the time; not negative
     * @return this builder
     */
    public Builder ttft(Duration ttft) {
      set = Checks.once(set, Option.TTFT);
      this.ttft = Checks.nonNegative(ttft, "ttft");
      return this;
    }

    /**
     * A disaggregated attempt's {@linkplain Outcome#prefillTime() prefill time}.
     *
     * @param prefillTime the time from the send to the prefill replica's answer; not negative
     * @return this builder
     */
    public Builder prefillTime(Duration prefillTime) {
      set = Checks.once(set, Option.PREFILL_TIME);
      this.prefillTime = Checks.nonNegative(prefillTime, "prefillTime");
      return this;
    }

    /**
     * Sets the output tokens the attempt generated; unset means not reported.
     *
     * @param outputTokens tokens; {@code >= 0}
     * @return this builder
     */
    public Builder outputTokens(int outputTokens) {
      set = Checks.once(set, Option.OUTPUT_TOKENS);
      this.outputTokens = OptionalInt.of(Checks.atLeast(outputTokens, 0, "outputTokens"));
      return this;
    }

    /**
     * @return the outcome
     * @throws IllegalArgumentException if a required option is missing or times are inconsistent
     */
    public Outcome build() {
      if (requestId == null) {
        throw new IllegalArgumentException("requestId: null (expected: set before build)");
      }
      if (replicaId == null) {
        throw new IllegalArgumentException("replicaId: null (expected: set before build)");
      }
      if (status == null) {
        throw new IllegalArgumentException("status: null (expected: set before build)");
      }
      if (!Checks.isSet(set, Option.EPOCH)) {
        // without it, an outcome for a replica past epoch 0 could never match its lease
        throw new IllegalArgumentException(
            "epoch: unset (expected: the routed decision's epoch, set before build)");
      }
      if (queueTime != null && ttft != null) {
        Checks.argument(queueTime.compareTo(ttft) <= 0, "queueTime", queueTime, "<= ttft = " + ttft);
      }
      // the queue is the prefill replica's; the prefill's answer may come after the decode's first
      // token (a proxy that sends both at once), so the prefill time is not bounded by the TTFT
      if (queueTime != null && prefillTime != null) {
        Checks.argument(queueTime.compareTo(prefillTime) <= 0, "queueTime", queueTime,
            "<= prefillTime = " + prefillTime);
      }
      return new Outcome(this);
    }
  }
}
