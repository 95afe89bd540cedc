package io.github.kvroute.api;

import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One telemetry report from one replica: who it is (id and {@linkplain #epoch() epoch}), what state it
 * is in, what it serves, and how loaded it is. Field names follow vLLM's metrics where one exists
 * ({@code vllm:num_requests_waiting}, {@code vllm:num_requests_running}, KV cache usage).
 *
 * <p><b>Unknown is absent, never zero.</b> A replica that does not report its queue has an empty
 * {@link #waitingRequests()}, not 0; the router then estimates from what it knows instead of trusting
 * an idle-looking zero.
 *
 * <p><b>Epochs.</b> The epoch is the generation of the replica's process (for example its start
 * time or a restart counter). A report from an older epoch than the router already knows is
 * ignored: a delayed message from a dead process must never make it current again. Epochs are at
 * most {@link #MAX_EPOCH} (a start time in nanoseconds fits until the year 2116): a larger one is
 * taken for a corrupted value, which would otherwise make every real report look stale.
 *
 * <p><b>Time.</b> {@link #observedAtNanos()} is when the replica measured these values, on the router's
 * {@link Ticker}; the router keeps it and lets policies weigh the report by its age. Absent, the router
 * uses the time it received the report.
 *
 * <p>Immutable and thread-safe.
 */
public final class ReplicaSnapshot {
  /** The largest accepted epoch, in reports, KV events and outcomes: {@code 2^62 - 1}. */
  public static final long MAX_EPOCH = (1L << 62) - 1;

  private final String replicaId;
  private final long epoch;
  private final OptionalLong observedAtNanos;
  private final ReplicaState state;
  private final ReplicaRole role;
  private final String model;
  private final Optional<String> modelVersion;
  private final OptionalInt waitingRequests;
  private final OptionalInt runningRequests;
  private final OptionalLong queuedPrefillTokens;
  private final OptionalLong outstandingDecodeTokens;
  private final OptionalLong kvBlocksUsed;
  private final OptionalLong kvBlocksTotal;
  private final OptionalInt kvBlockSizeTokens;
  /** Derived once here: routers read it for every candidate of every decision. */
  private final OptionalLong kvCapacityTokens;
  private final Set<String> residentAdapters;
  private final Optional<Set<String>> loadableAdapters;
  private final OptionalDouble prefillTokensPerSecond;
  private final OptionalDouble decodeStepMillis;
  private final OptionalDouble estimatedQueueDelayMillis;
  private final OptionalLong requestsReceivedTotal;
  private final OptionalLong promptTokensTotal;
  private final OptionalLong generationTokensTotal;
  private final OptionalLong prefixCacheQueriesTotal;
  private final OptionalLong prefixCacheHitsTotal;
  private final OptionalLong preemptionsTotal;
  private final OptionalDouble cacheHitRate;
  private final OptionalDouble generationTokensPerSecond;
  private final Optional<LatencyTotals> timeToFirstToken;
  private final Optional<LatencyTotals> queueTime;
  private final Optional<LatencyTotals> prefillTime;

  private ReplicaSnapshot(Builder b) {
    this.replicaId = b.replicaId;
    this.epoch = b.epoch;
    this.observedAtNanos = b.observedAtNanos;
    this.state = b.state;
    this.role = b.role;
    this.model = b.model;
    this.modelVersion = Optional.ofNullable(b.modelVersion);
    this.waitingRequests = b.waitingRequests;
    this.runningRequests = b.runningRequests;
    this.queuedPrefillTokens = b.queuedPrefillTokens;
    this.outstandingDecodeTokens = b.outstandingDecodeTokens;
    this.kvBlocksUsed = b.kvBlocksUsed;
    this.kvBlocksTotal = b.kvBlocksTotal;
    this.kvBlockSizeTokens = b.kvBlockSizeTokens;
    this.kvCapacityTokens = capacityTokens(b.kvBlocksTotal, b.kvBlockSizeTokens);
    this.residentAdapters = b.residentAdapters;
    this.loadableAdapters = Optional.ofNullable(b.loadableAdapters);
    this.prefillTokensPerSecond = b.prefillTokensPerSecond;
    this.decodeStepMillis = b.decodeStepMillis;
    this.estimatedQueueDelayMillis = b.estimatedQueueDelayMillis;
    this.requestsReceivedTotal = b.requestsReceivedTotal;
    this.promptTokensTotal = b.promptTokensTotal;
    this.generationTokensTotal = b.generationTokensTotal;
    this.prefixCacheQueriesTotal = b.prefixCacheQueriesTotal;
    this.prefixCacheHitsTotal = b.prefixCacheHitsTotal;
    this.preemptionsTotal = b.preemptionsTotal;
    this.cacheHitRate = b.cacheHitRate;
    this.generationTokensPerSecond = b.generationTokensPerSecond;
    this.timeToFirstToken = Optional.ofNullable(b.timeToFirstToken);
    this.queueTime = Optional.ofNullable(b.queueTime);
    this.prefillTime = Optional.ofNullable(b.prefillTime);
  }

  /**
   * {@return a new builder; {@code replicaId} and {@code model} are required, every other option
   * defaults to unknown (absent)}
   */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** {@return the replica's id in the router (never blank)} */
  public String replicaId() {
    return replicaId;
  }

  /** {@return generation of the replica's process; reports from older epochs are ignored} */
  public long epoch() {
    return epoch;
  }

  /** {@return when the replica measured this report, on the router's ticker} */
  public OptionalLong observedAtNanos() {
    return observedAtNanos;
  }

  /**
   * {@return the replica's lifecycle state as it reports it; only {@link ReplicaState#READY}
   * replicas are routed to}
   */
  public ReplicaState state() {
    return state;
  }

  /**
   * {@return what the replica serves: whole requests ({@link ReplicaRole#MIXED}), or prefill or
   * decode only}
   */
  public ReplicaRole role() {
    return role;
  }

  /** {@return the model the replica serves, as requests name it (never blank)} */
  public String model() {
    return model;
  }

  /**
   * {@return the model version the replica serves; empty when the fleet serves a single version}
   */
  public Optional<String> modelVersion() {
    return modelVersion;
  }

  /** {@return requests queued, not yet scheduled ({@code vllm:num_requests_waiting})} */
  public OptionalInt waitingRequests() {
    return waitingRequests;
  }

  /** {@return requests in the running batch ({@code vllm:num_requests_running})} */
  public OptionalInt runningRequests() {
    return runningRequests;
  }

  /**
   * {@return prompt tokens still to be prefilled, over waiting and partially prefilled requests}
   */
  public OptionalLong queuedPrefillTokens() {
    return queuedPrefillTokens;
  }

  /** {@return output tokens still to be generated by running requests (their remaining budgets)} */
  public OptionalLong outstandingDecodeTokens() {
    return outstandingDecodeTokens;
  }

  /**
   * {@return engine KV blocks in use, at most {@link #kvBlocksTotal()}; empty when the engine does
   * not report them}
   */
  public OptionalLong kvBlocksUsed() {
    return kvBlocksUsed;
  }

  /** {@return total engine KV blocks; empty when the engine does not report them} */
  public OptionalLong kvBlocksTotal() {
    return kvBlocksTotal;
  }

  /** {@return tokens per engine KV block (vLLM {@code cache_config_info} {@code block_size})} */
  public OptionalInt kvBlockSizeTokens() {
    return kvBlockSizeTokens;
  }

  /** {@return KV cache usage in {@code [0, 1]} when both used and total blocks are known} */
  public OptionalDouble kvUtilization() {
    if (kvBlocksUsed.isEmpty() || kvBlocksTotal.isEmpty() || kvBlocksTotal.getAsLong() == 0) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of((double) kvBlocksUsed.getAsLong() / kvBlocksTotal.getAsLong());
  }

  /** {@return KV capacity in tokens, when total blocks and block size are both known} */
  public OptionalLong kvCapacityTokens() {
    return kvCapacityTokens;
  }

  private static OptionalLong capacityTokens(OptionalLong kvBlocksTotal,
      OptionalInt kvBlockSizeTokens) {
    if (kvBlocksTotal.isEmpty() || kvBlockSizeTokens.isEmpty()) {
      return OptionalLong.empty();
    }
    long blocks = kvBlocksTotal.getAsLong();
    int size = kvBlockSizeTokens.getAsInt();
    return OptionalLong.of(blocks > Long.MAX_VALUE / size ? Long.MAX_VALUE : blocks * size);
  }

  /** {@return LoRA adapters loaded and ready} */
  public Set<String> residentAdapters() {
    return residentAdapters;
  }

  /**
   * Adapters the replica can load on demand besides the resident ones; absent means any adapter can be
   * loaded (dynamic LoRA), an empty set means none.
   *
   * @return the adapters loadable on demand; empty means any adapter can be loaded, an empty set
   *     means none
   */
  public Optional<Set<String>> loadableAdapters() {
    return loadableAdapters;
  }

  /**
   * Whether the replica holds {@code adapter} or can load it.
   *
   * @param adapter the adapter's name, as requests name it
   * @return {@code true} when {@code adapter} is resident, or loadable (always, when
   *     {@link #loadableAdapters()} is absent)
   */
  public boolean canServeAdapter(String adapter) {
    Checks.notNull(adapter, "adapter");
    return residentAdapters.contains(adapter)
        || loadableAdapters.map(s -> s.contains(adapter)).orElse(true);
  }

  /** {@return measured prefill throughput} */
  public OptionalDouble prefillTokensPerSecond() {
    return prefillTokensPerSecond;
  }

  /** {@return measured time of one decode step at the current batch} */
  public OptionalDouble decodeStepMillis() {
    return decodeStepMillis;
  }

  /**
   * {@return the replica's own estimate of how long a new request would wait before prefill starts}
   */
  public OptionalDouble estimatedQueueDelayMillis() {
    return estimatedQueueDelayMillis;
  }

  /**
   * {@return cumulative requests the replica has received from every router, when it counts them}
   * Comparing its growth with this router's own sends estimates the traffic other routers send (the
   * staleness risk).
   */
  public OptionalLong requestsReceivedTotal() {
    return requestsReceivedTotal;
  }

  /**
   * {@return cumulative prompt tokens of requests that reached their first token, cached ones
   * included ({@code vllm:prompt_tokens_total}, {@code sglang:prompt_tokens_total}; SGLang counts a
   * request when it finishes)} Its rate is the replica's prompt throughput.
   */
  public OptionalLong promptTokensTotal() {
    return promptTokensTotal;
  }

  /**
   * {@return cumulative generated tokens ({@code vllm:generation_tokens_total},
   * {@code sglang:generation_tokens_total}; SGLang counts a request when it finishes)}
   */
  public OptionalLong generationTokensTotal() {
    return generationTokensTotal;
  }

  /**
   * {@return cumulative prompt tokens looked up in the prefix cache
   * ({@code vllm:prefix_cache_queries_total})}
   */
  public OptionalLong prefixCacheQueriesTotal() {
    return prefixCacheQueriesTotal;
  }

  /**
   * {@return cumulative prompt tokens found in the prefix cache
   * ({@code vllm:prefix_cache_hits_total})}
   */
  public OptionalLong prefixCacheHitsTotal() {
    return prefixCacheHitsTotal;
  }

  /** {@return cumulative preemptions ({@code vllm:num_preemptions_total})} */
  public OptionalLong preemptionsTotal() {
    return preemptionsTotal;
  }

  /**
   * {@return the engine's own recent prefix-cache hit rate in {@code [0, 1]}
   * ({@code sglang:cache_hit_rate})}
   */
  public OptionalDouble cacheHitRate() {
    return cacheHitRate;
  }

  /**
   * {@return the engine's own recent decode throughput in tokens per second
   * ({@code sglang:gen_throughput})}
   */
  public OptionalDouble generationTokensPerSecond() {
    return generationTokensPerSecond;
  }

  /**
   * {@return sum and count of the engine's time-to-first-token histogram
   * ({@code vllm:time_to_first_token_seconds}, {@code sglang:time_to_first_token_seconds})}
   */
  public Optional<LatencyTotals> timeToFirstToken() {
    return timeToFirstToken;
  }

  /**
   * {@return sum and count of the time finished requests spent waiting
   * ({@code vllm:request_queue_time_seconds})}
   */
  public Optional<LatencyTotals> queueTime() {
    return queueTime;
  }

  /**
   * {@return sum and count of the time finished requests spent from being scheduled to their first
   * token ({@code vllm:request_prefill_time_seconds})}
   */
  public Optional<LatencyTotals> prefillTime() {
    return prefillTime;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("ReplicaSnapshot{").append(replicaId).append('#').append(epoch)
        .append(' ').append(state).append(' ').append(role).append(' ').append(model);
    modelVersion.ifPresent(v -> s.append('@').append(v));
    waitingRequests.ifPresent(v -> s.append(", waiting=").append(v));
    runningRequests.ifPresent(v -> s.append(", running=").append(v));
    queuedPrefillTokens.ifPresent(v -> s.append(", queuedPrefill=").append(v));
    kvUtilization().ifPresent(v -> s.append(String.format(java.util.Locale.ROOT, ", kv=%.2f", v)));
    return s.append('}').toString();
  }

  /** Builds a {@link ReplicaSnapshot}. Not thread-safe; each option may be set once. */
  public static final class Builder {
    /** This builder's options, each set once ({@link Checks#once}). */
    private enum Option {
      REPLICA_ID, EPOCH, OBSERVED_AT_NANOS, STATE, ROLE, MODEL, MODEL_VERSION, WAITING_REQUESTS,
      RUNNING_REQUESTS, QUEUED_PREFILL_TOKENS, OUTSTANDING_DECODE_TOKENS, KV_BLOCKS, KV_BLOCK_SIZE_TOKENS,
      RESIDENT_ADAPTERS, LOADABLE_ADAPTERS, PREFILL_TOKENS_PER_SECOND, DECODE_STEP_MILLIS,
      ESTIMATED_QUEUE_DELAY_MILLIS, REQUESTS_RECEIVED_TOTAL, PROMPT_TOKENS_TOTAL,
      GENERATION_TOKENS_TOTAL, PREFIX_CACHE, PREEMPTIONS_TOTAL, CACHE_HIT_RATE,
      GENERATION_TOKENS_PER_SECOND, TIME_TO_FIRST_TOKEN, QUEUE_TIME, PREFILL_TIME
    }

    private long set;
    private String replicaId;
    private long epoch;
    private OptionalLong observedAtNanos = OptionalLong.empty();
    private ReplicaState state = ReplicaState.READY;
    private ReplicaRole role = ReplicaRole.MIXED;
    private String model;
    private String modelVersion;
    private OptionalInt waitingRequests = OptionalInt.empty();
    private OptionalInt runningRequests = OptionalInt.empty();
    private OptionalLong queuedPrefillTokens = OptionalLong.empty();
    private OptionalLong outstandingDecodeTokens = OptionalLong.empty();
    private OptionalLong kvBlocksUsed = OptionalLong.empty();
    private OptionalLong kvBlocksTotal = OptionalLong.empty();
    private OptionalInt kvBlockSizeTokens = OptionalInt.empty();
    private Set<String> residentAdapters = Set.of();
    private Set<String> loadableAdapters;
    private OptionalDouble prefillTokensPerSecond = OptionalDouble.empty();
    private OptionalDouble decodeStepMillis = OptionalDouble.empty();
    private OptionalDouble estimatedQueueDelayMillis = OptionalDouble.empty();
    private OptionalLong requestsReceivedTotal = OptionalLong.empty();
    private OptionalLong promptTokensTotal = OptionalLong.empty();
    private OptionalLong generationTokensTotal = OptionalLong.empty();
    private OptionalLong prefixCacheQueriesTotal = OptionalLong.empty();
    private OptionalLong prefixCacheHitsTotal = OptionalLong.empty();
    private OptionalLong preemptionsTotal = OptionalLong.empty();
    private OptionalDouble cacheHitRate = OptionalDouble.empty();
    private OptionalDouble generationTokensPerSecond = OptionalDouble.empty();
    private LatencyTotals timeToFirstToken;
    private LatencyTotals queueTime;
    private LatencyTotals prefillTime;

    private Builder() {}

    /**
     * Required.
     *
     * @param replicaId the replica's id in the router; not blank
     * @return this builder
     */
    public Builder replicaId(String replicaId) {
      set = Checks.once(set, Option.REPLICA_ID);
      this.replicaId = Checks.notBlank(replicaId, "replicaId");
      return this;
    }

    /**
     * Defaults to 0.
     *
     * @param epoch the generation of the replica's process, in {@code [0, MAX_EPOCH]}
     * @return this builder
     */
    public Builder epoch(long epoch) {
      long checked = Checks.epoch(epoch);
      set = Checks.once(set, Option.EPOCH);
      this.epoch = checked;
      return this;
    }

    /**
     * Sets when the replica measured the report; unset, the router uses the time it received it.
     *
     * @param observedAtNanos nanoseconds on the router's {@link Ticker}
     * @return this builder
     */
    public Builder observedAtNanos(long observedAtNanos) {
      set = Checks.once(set, Option.OBSERVED_AT_NANOS);
      this.observedAtNanos = OptionalLong.of(observedAtNanos);
      return this;
    }

    /**
     * Defaults to {@link ReplicaState#READY}.
     *
     * @param state the replica's lifecycle state; not null
     * @return this builder
     */
    public Builder state(ReplicaState state) {
      set = Checks.once(set, Option.STATE);
      this.state = Checks.notNull(state, "state");
      return this;
    }

    /**
     * Defaults to {@link ReplicaRole#MIXED}.
     *
     * @param role what the replica serves; not null
     * @return this builder
     */
    public Builder role(ReplicaRole role) {
      set = Checks.once(set, Option.ROLE);
      this.role = Checks.notNull(role, "role");
      return this;
    }

    /**
     * Required.
     *
     * @param model the model served, as requests name it; not blank
     * @return this builder
     */
    public Builder model(String model) {
      set = Checks.once(set, Option.MODEL);
      this.model = Checks.notBlank(model, "model");
      return this;
    }

    /**
     * Sets the model version served; unset means the fleet serves a single version.
     *
     * @param modelVersion the version label; not blank
     * @return this builder
     */
    public Builder modelVersion(String modelVersion) {
      set = Checks.once(set, Option.MODEL_VERSION);
      this.modelVersion = Checks.notBlank(modelVersion, "modelVersion");
      return this;
    }

    /**
     * Sets the requests queued and not yet scheduled ({@code vllm:num_requests_waiting}); unset
     * means unknown, never 0.
     *
     * @param waitingRequests requests; {@code >= 0}
     * @return this builder
     */
    public Builder waitingRequests(int waitingRequests) {
      set = Checks.once(set, Option.WAITING_REQUESTS);
      this.waitingRequests = OptionalInt.of(Checks.atLeast(waitingRequests, 0, "waitingRequests"));
      return this;
    }

    /**
     * Sets the requests in the running batch ({@code vllm:num_requests_running}); unset means
     * unknown.
     *
     * @param runningRequests requests; {@code >= 0}
     * @return this builder
     */
    public Builder runningRequests(int runningRequests) {
      set = Checks.once(set, Option.RUNNING_REQUESTS);
      this.runningRequests = OptionalInt.of(Checks.atLeast(runningRequests, 0, "runningRequests"));
      return this;
    }

    /**
     * Sets the prompt tokens still to be prefilled over waiting and partially prefilled requests;
     * unset means unknown.
     *
     * @param queuedPrefillTokens tokens; {@code >= 0}
     * @return this builder
     */
    public Builder queuedPrefillTokens(long queuedPrefillTokens) {
      set = Checks.once(set, Option.QUEUED_PREFILL_TOKENS);
      this.queuedPrefillTokens =
          OptionalLong.of(Checks.atLeast(queuedPrefillTokens, 0L, "queuedPrefillTokens"));
      return this;
    }

    /**
     * Sets the output tokens running requests still have to generate; unset means unknown.
     *
     * @param outstandingDecodeTokens tokens; {@code >= 0}
     * @return this builder
     */
    public Builder outstandingDecodeTokens(long outstandingDecodeTokens) {
      set = Checks.once(set, Option.OUTSTANDING_DECODE_TOKENS);
      this.outstandingDecodeTokens =
          OptionalLong.of(Checks.atLeast(outstandingDecodeTokens, 0L, "outstandingDecodeTokens"));
      return this;
    }

    /**
     * Used and total engine KV blocks; {@code used <= total}.
     *
     * @param used KV blocks in use; {@code >= 0}
     * @param total KV blocks in all; {@code >= used}
     * @return this builder
     */
    public Builder kvBlocks(long used, long total) {
      set = Checks.once(set, Option.KV_BLOCKS);
      Checks.atLeast(used, 0L, "kvBlocksUsed");
      Checks.atLeast(total, 0L, "kvBlocksTotal");
      Checks.argument(used <= total, "kvBlocksUsed", used, "<= kvBlocksTotal = " + total);
      this.kvBlocksUsed = OptionalLong.of(used);
      this.kvBlocksTotal = OptionalLong.of(total);
      return this;
    }

    /**
     * KV usage as an engine exports it: a fraction in {@code [0, 1]} of {@code totalBlocks} (vLLM's
     * {@code vllm:kv_cache_usage_perc} with {@code num_gpu_blocks} from {@code vllm:cache_config_info}).
     * Used blocks are {@code round(fraction x totalBlocks)}; an alternative to {@link #kvBlocks}.
     *
     * @param fraction the used fraction, in {@code [0, 1]}
     * @param totalBlocks KV blocks in all; {@code >= 0}
     * @return this builder
     */
    public Builder kvUsage(double fraction, long totalBlocks) {
      Checks.argument(fraction >= 0 && fraction <= 1, "kvUsage", fraction, "in [0, 1]");
      Checks.atLeast(totalBlocks, 0L, "kvBlocksTotal");
      return kvBlocks(Math.round(fraction * totalBlocks), totalBlocks);
    }

    /**
     * Sets the tokens per engine KV block; unset means unknown (the KV capacity in tokens is then
     * unknown too).
     *
     * @param kvBlockSizeTokens tokens per block; {@code >= 1}
     * @return this builder
     */
    public Builder kvBlockSizeTokens(int kvBlockSizeTokens) {
      set = Checks.once(set, Option.KV_BLOCK_SIZE_TOKENS);
      this.kvBlockSizeTokens = OptionalInt.of(Checks.atLeast(kvBlockSizeTokens, 1, "kvBlockSizeTokens"));
      return this;
    }

    /**
     * Sets the LoRA adapters loaded and ready; unset means none.
     *
     * @param residentAdapters adapter names; copied
     * @return this builder
     */
    public Builder residentAdapters(Set<String> residentAdapters) {
      set = Checks.once(set, Option.RESIDENT_ADAPTERS);
      this.residentAdapters = Set.copyOf(Checks.notNull(residentAdapters, "residentAdapters"));
      return this;
    }

    /**
     * Restricts which adapters can be loaded; unset means any.
     *
     * @param loadableAdapters adapter names; copied. An empty set means no adapter can be loaded
     * @return this builder
     */
    public Builder loadableAdapters(Set<String> loadableAdapters) {
      set = Checks.once(set, Option.LOADABLE_ADAPTERS);
      this.loadableAdapters = Set.copyOf(Checks.notNull(loadableAdapters, "loadableAdapters"));
      return this;
    }

    /**
     * Sets the measured prefill throughput; unset means unknown (the router then uses its default
     * prefill cost).
     *
     * @param prefillTokensPerSecond prompt tokens per second; positive and finite
     * @return this builder
     */
    public Builder prefillTokensPerSecond(double prefillTokensPerSecond) {
      set = Checks.once(set, Option.PREFILL_TOKENS_PER_SECOND);
      this.prefillTokensPerSecond = OptionalDouble.of(
          Checks.positiveFinite(prefillTokensPerSecond, "prefillTokensPerSecond"));
      return this;
    }

    /**
     * Sets the measured time of one decode step at the current batch; unset means unknown.
     *
     * @param decodeStepMillis milliseconds per decode step; positive and finite
     * @return this builder
     */
    public Builder decodeStepMillis(double decodeStepMillis) {
      set = Checks.once(set, Option.DECODE_STEP_MILLIS);
      this.decodeStepMillis =
          OptionalDouble.of(Checks.positiveFinite(decodeStepMillis, "decodeStepMillis"));
      return this;
    }

    /**
     * Sets the replica's own estimate of the wait before a new request's prefill starts; unset
     * means the replica gives none.
     *
     * @param estimatedQueueDelayMillis the wait in milliseconds; non-negative and finite
     * @return this builder
     */
    public Builder estimatedQueueDelayMillis(double estimatedQueueDelayMillis) {
      set = Checks.once(set, Option.ESTIMATED_QUEUE_DELAY_MILLIS);
      this.estimatedQueueDelayMillis = OptionalDouble.of(
          Checks.nonNegativeFinite(estimatedQueueDelayMillis, "estimatedQueueDelayMillis"));
      return this;
    }

    /**
     * Sets the cumulative requests the replica has received from every router; unset means the
     * replica does not count them.
     *
     * @param requestsReceivedTotal requests since the process started; {@code >= 0}
     * @return this builder
     */
    public Builder requestsReceivedTotal(long requestsReceivedTotal) {
      set = Checks.once(set, Option.REQUESTS_RECEIVED_TOTAL);
      this.requestsReceivedTotal =
          OptionalLong.of(Checks.atLeast(requestsReceivedTotal, 0L, "requestsReceivedTotal"));
      return this;
    }

    /**
     * Sets the cumulative prompt tokens of requests that reached their first token, cached ones
     * included ({@code vllm:prompt_tokens_total}); unset means unknown.
     *
     * @param v tokens since the process started; {@code >= 0}
     * @return this builder
     */
    public Builder promptTokensTotal(long v) {
      set = Checks.once(set, Option.PROMPT_TOKENS_TOTAL);
      promptTokensTotal = OptionalLong.of(Checks.atLeast(v, 0L, "promptTokensTotal"));
      return this;
    }

    /**
     * Sets the cumulative count of generated tokens ({@code vllm:generation_tokens_total}); unset
     * means unknown.
     *
     * @param v tokens since the process started; {@code >= 0}
     * @return this builder
     */
    public Builder generationTokensTotal(long v) {
      set = Checks.once(set, Option.GENERATION_TOKENS_TOTAL);
      generationTokensTotal = OptionalLong.of(Checks.atLeast(v, 0L, "generationTokensTotal"));
      return this;
    }

    /**
     * Prefix-cache queries and hits, in tokens; {@code hits <= queries}.
     *
     * @param queriesTotal cumulative prompt tokens looked up; {@code >= 0}
     * @param hitsTotal cumulative prompt tokens found; in {@code [0, queriesTotal]}
     * @return this builder
     */
    public Builder prefixCache(long queriesTotal, long hitsTotal) {
      set = Checks.once(set, Option.PREFIX_CACHE);
      Checks.atLeast(queriesTotal, 0L, "prefixCacheQueriesTotal");
      Checks.atLeast(hitsTotal, 0L, "prefixCacheHitsTotal");
      Checks.argument(hitsTotal <= queriesTotal, "prefixCacheHitsTotal", hitsTotal,
          "<= prefixCacheQueriesTotal = " + queriesTotal);
      prefixCacheQueriesTotal = OptionalLong.of(queriesTotal);
      prefixCacheHitsTotal = OptionalLong.of(hitsTotal);
      return this;
    }

    /**
     * Sets the cumulative count of preemptions ({@code vllm:num_preemptions_total}); unset means
     * unknown.
     *
     * @param v preemptions since the process started; {@code >= 0}
     * @return this builder
     */
    public Builder preemptionsTotal(long v) {
      set = Checks.once(set, Option.PREEMPTIONS_TOTAL);
      preemptionsTotal = OptionalLong.of(Checks.atLeast(v, 0L, "preemptionsTotal"));
      return this;
    }

    /**
     * In {@code [0, 1]}.
     *
     * @param v the engine's recent prefix-cache hit rate ({@code sglang:cache_hit_rate})
     * @return this builder
     */
    public Builder cacheHitRate(double v) {
      set = Checks.once(set, Option.CACHE_HIT_RATE);
      Checks.argument(v >= 0 && v <= 1, "cacheHitRate", v, "in [0, 1]");
      cacheHitRate = OptionalDouble.of(v);
      return this;
    }

    /**
     * Sets the engine's recent decode throughput ({@code sglang:gen_throughput}); unset means
     * unknown.
     *
     * @param v tokens per second; non-negative and finite
     * @return this builder
     */
    public Builder generationTokensPerSecond(double v) {
      set = Checks.once(set, Option.GENERATION_TOKENS_PER_SECOND);
      generationTokensPerSecond =
          OptionalDouble.of(Checks.nonNegativeFinite(v, "generationTokensPerSecond"));
      return this;
    }

    /**
     * Sets the engine's time-to-first-token histogram totals
     * ({@code vllm:time_to_first_token_seconds}); unset means the engine does not export it.
     *
     * @param v the histogram's sum and count; not null
     * @return this builder
     */
    public Builder timeToFirstToken(LatencyTotals v) {
      set = Checks.once(set, Option.TIME_TO_FIRST_TOKEN);
      timeToFirstToken = Checks.notNull(v, "timeToFirstToken");
      return this;
    }

    /**
     * Sets the engine's queue-time histogram totals ({@code vllm:request_queue_time_seconds});
     * unset means the engine does not export it.
     *
     * @param v the histogram's sum and count; not null
     * @return this builder
     */
    public Builder queueTime(LatencyTotals v) {
      set = Checks.once(set, Option.QUEUE_TIME);
      queueTime = Checks.notNull(v, "queueTime");
      return this;
    }

    /**
     * Sets the engine's scheduled-to-first-token histogram totals
     * ({@code vllm:request_prefill_time_seconds}); unset means the engine does not export it.
     *
     * @param v the histogram's sum and count; not null
     * @return this builder
     */
    public Builder prefillTime(LatencyTotals v) {
      set = Checks.once(set, Option.PREFILL_TIME);
      prefillTime = Checks.notNull(v, "prefillTime");
      return this;
    }

    /**
     * @return the immutable report
     * @throws IllegalArgumentException if {@code replicaId} or {@code model} is missing
     */
    public ReplicaSnapshot build() {
      if (replicaId == null) {
        throw new IllegalArgumentException("replicaId: null (expected: set before build)");
      }
      if (model == null) {
        throw new IllegalArgumentException("model: null (expected: set before build)");
      }
      return new ReplicaSnapshot(this);
    }
  }
}
