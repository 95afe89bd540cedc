package io.github.kvroute.api;

import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * What the router knows about one eligible replica at the moment of one decision: the replica's last
 * report and its age, this router's own traffic to it since then, and the router's estimates derived
 * from both. Policies read views; they never see the router's internals.
 *
 * <p>Estimates are in milliseconds of time to first token, so they add up: a policy that sums
 * {@link #estimatedQueueMillis()}, the prefill of the tokens not {@linkplain #matchedTokens() matched},
 * {@link #adapterLoadMillis()} and {@link #kvTransferMillis()} predicts a TTFT.
 *
 * <p>Thread-safety: a view handed to a policy is valid only during that {@code route} call and only on
 * the calling thread; the router may reuse the object afterwards. Policies must not keep references to
 * views (keep {@link #replicaId()} instead). Views built with {@link #newBuilder()} are immutable.
 */
public interface CandidateView {

  /** {@return the replica's id in the router; keep it, not the view, across calls} */
  String replicaId();

  /** {@return the replica's current epoch} */
  long epoch();

  /** {@return what the replica serves: whole requests, or prefill or decode only} */
  ReplicaRole role();

  /** {@return the latest report, raw} */
  ReplicaSnapshot snapshot();

  /** {@return how old the report is: now minus its {@code observedAt}} */
  double snapshotAgeMillis();

  /**
   * {@return whether the report is older than the router's staleness limit; the policy decides what
   * to do}
   */
  boolean telemetryStale();

  /** {@return requests this router sent to the replica that have no outcome yet} */
  int inFlightRequests();

  /** {@return prompt plus planned output tokens over {@link #inFlightRequests()}} */
  long inFlightTokens();

  /** {@return prompt tokens alone over {@link #inFlightRequests()}} */
  long inFlightPromptTokens();

  /** {@return requests this router sent after the report was observed (not yet reflected in it)} */
  int dispatchedSinceSnapshot();

  /**
   * {@return estimated wait before this request's prefill would start: the reported queue, plus
   * what this router sent since the report, minus what the replica has worked off since}
   */
  double estimatedQueueMillis();

  /**
   * {@return {@link #estimatedQueueMillis()} corrected by what outcomes showed about this replica:
   * times the learnt ratio of the waits its requests really had to the waits predicted for them (a
   * busy continuous-batching engine spends part of every step decoding, so queued work drains
   * slower than its prefill time)} Policies rank replicas by the uncorrected estimate; absolute
   * judgements, such as whether a request can still meet its deadline, use this. Equal to the
   * estimate until outcomes say otherwise, and for views that do not learn.
   */
  default double calibratedQueueMillis() {
    return estimatedQueueMillis();
  }

  /**
   * {@return how far the real wait has strayed around {@link #calibratedQueueMillis()}: the
   * standard deviation outcomes showed, in milliseconds at the current queue} An admission
   * controller that wants a deadline met with some confidence adds a multiple of it. 0 until
   * outcomes say otherwise, and for views that do not learn.
   */
  default double queueUncertaintyMillis() {
    return 0;
  }

  /**
   * {@return outstanding work in tokens (queued prompt tokens plus remaining output), counting what
   * this router sent since the report: the quantity least-outstanding-tokens balances}
   */
  long estimatedOutstandingTokens();

  /** {@return leading prompt blocks the router believes the replica holds} */
  int matchedBlocks();

  /** {@return leading prompt tokens the router believes the replica holds} */
  int matchedTokens();

  /**
   * {@return prompt blocks the router believes the replica's prefix cache holds now (all prompts)}
   */
  long cachedBlocks();

  /**
   * {@return how many blocks the router believes the replica's prefix cache can hold: its reported
   * KV capacity (or the router's default), as the index mirrors it} A placement whose new blocks do
   * not fit evicts the least recently used ones.
   */
  long cacheCapacityBlocks();

  /** {@return prefill cost per missing token on this replica (reported, calibrated or default)} */
  double prefillMillisPerToken();

  /** {@return fixed cost of a prefill on this replica} */
  double prefillOverheadMillis();

  /**
   * {@return time to load the request's adapter here: 0 when resident or when the request has none}
   */
  double adapterLoadMillis();

  /** {@return time to move the prompt's KV to this replica (disaggregated decode); 0 otherwise} */
  double kvTransferMillis();

  /**
   * {@return KV cache usage in {@code [0, 1]} including this router's sends since the report, when
   * known}
   */
  OptionalDouble kvUtilization();

  /** {@return free KV capacity in tokens after this router's sends since the report, when known} */
  OptionalLong freeKvTokens();

  /**
   * {@return estimated arrival rate at this replica of traffic this router neither sees nor already
   * accounts for in {@link #estimatedQueueMillis()}: other routers' sends beyond those that move
   * with this router's own (which the queue estimate already counts)} The staleness risk prices it.
   */
  double unseenArrivalsPerSecond();

  /**
   * {@return estimated arrival rate at this replica from all routers: this router's own recent
   * rate, times {@code 1 + peers} (other routers sending like this one), plus the unexplained rest
   * of other routers' traffic ({@link #unseenArrivalsPerSecond()})} Times
   * {@link #meanRequestCostMillis()} / 1000, it estimates the replica's utilisation.
   */
  double arrivalsPerSecond();

  /** {@return mean predicted cost of recent requests, the unit of the staleness risk} */
  double meanRequestCostMillis();

  /**
   * {@return the mean time to first token of the requests that recently reached their first token
   * on this replica, from every router, as the replica's own TTFT histogram reports it (for example
   * {@code vllm:time_to_first_token_seconds}: the change in its sum over the change in its count
   * between reports, averaged over recent reports); empty until two reports with first tokens
   * between them} Times {@link #arrivalsPerSecond()} / 1000 it is the number of requests in the
   * replica's prefill system (Little's law), which prices the delay a placement imposes on later
   * arrivals.
   */
  default OptionalDouble recentTtftMillis() {
    return OptionalDouble.empty();
  }

  /**
   * {@return how far outcomes have confirmed the router's cache beliefs about this replica: a
   * running average of reused tokens over predicted matched tokens, in {@code [0, 1]}; 1 when the
   * index has been right (or nothing has been learnt yet)}
   */
  double cacheHitReliability();

  /**
   * {@return whether the router's index for this replica follows the replica's KV events (exact
   * mode), so that {@link #matchedBlocks()} counts what any client placed there; false when it knows
   * only what this router sent (approximate mode, and by default)}
   */
  default boolean cacheFromEvents() {
    return false;
  }

  /**
   * {@return a builder of immutable views, for tests and for hosts unit-testing their own policies}
   */
  static Builder newBuilder() {
    return new Builder();
  }

  /** Builds an immutable {@link CandidateView}. Not thread-safe; each option may be set once. */
  final class Builder {
    /** This builder's options, each set once ({@link Checks#once}). */
    private enum Option {
      REPLICA_ID, EPOCH, ROLE, SNAPSHOT, SNAPSHOT_AGE_MILLIS, TELEMETRY_STALE, IN_FLIGHT,
      DISPATCHED_SINCE_SNAPSHOT, ESTIMATED_QUEUE_MILLIS, QUEUE_UNCERTAINTY_MILLIS,
      CALIBRATED_QUEUE_MILLIS, ESTIMATED_OUTSTANDING_TOKENS, MATCHED, CACHE, PREFILL,
      ADAPTER_LOAD_MILLIS, KV_TRANSFER_MILLIS, KV_UTILIZATION, FREE_KV_TOKENS,
      UNSEEN_ARRIVALS_PER_SECOND, ARRIVALS_PER_SECOND, MEAN_REQUEST_COST_MILLIS,
      CACHE_HIT_RELIABILITY, RECENT_TTFT_MILLIS, CACHE_FROM_EVENTS
    }

    private long set;
    String replicaId = "replica";
    long epoch;
    ReplicaRole role = ReplicaRole.MIXED;
    ReplicaSnapshot snapshot;
    double snapshotAgeMillis;
    boolean telemetryStale;
    int inFlightRequests;
    long inFlightTokens;
    long inFlightPromptTokens;
    int dispatchedSinceSnapshot;
    double estimatedQueueMillis;
    double calibratedQueueMillis = Double.NaN;
    double queueUncertaintyMillis;
    long estimatedOutstandingTokens;
    int matchedBlocks;
    int matchedTokens;
    long cachedBlocks;
    long cacheCapacityBlocks = Long.MAX_VALUE;
    double prefillMillisPerToken = DefaultPrefillCost.MILLIS_PER_TOKEN;
    double prefillOverheadMillis = DefaultPrefillCost.OVERHEAD_MILLIS;
    double adapterLoadMillis;
    double kvTransferMillis;
    OptionalDouble kvUtilization = OptionalDouble.empty();
    OptionalLong freeKvTokens = OptionalLong.empty();
    double unseenArrivalsPerSecond;
    double arrivalsPerSecond;
    double meanRequestCostMillis;
    double cacheHitReliability = 1.0;
    OptionalDouble recentTtftMillis = OptionalDouble.empty();
    boolean cacheFromEvents;

    Builder() {}

    /**
     * Sets {@link CandidateView#replicaId()}; default {@code "replica"}.
     *
     * @param v the id; not blank
     * @return this builder
     */
    public Builder replicaId(String v) {
      set = Checks.once(set, Option.REPLICA_ID);
      replicaId = Checks.notBlank(v, "replicaId");
      return this;
    }

    /**
     * Sets {@link CandidateView#epoch()}; default 0.
     *
     * @param v the epoch; {@code >= 0}
     * @return this builder
     */
    public Builder epoch(long v) {
      set = Checks.once(set, Option.EPOCH);
      epoch = Checks.atLeast(v, 0L, "epoch");
      return this;
    }

    /**
     * Sets {@link CandidateView#role()}; default {@link ReplicaRole#MIXED}.
     *
     * @param v the role; not null
     * @return this builder
     */
    public Builder role(ReplicaRole v) {
      set = Checks.once(set, Option.ROLE);
      role = Checks.notNull(v, "role");
      return this;
    }

    /**
     * Sets {@link CandidateView#snapshot()}; unset, a minimal READY report for model
     * {@code "model"} with this builder's id, epoch and role.
     *
     * @param v the report; not null
     * @return this builder
     */
    public Builder snapshot(ReplicaSnapshot v) {
      set = Checks.once(set, Option.SNAPSHOT);
      snapshot = Checks.notNull(v, "snapshot");
      return this;
    }

    /**
     * Sets {@link CandidateView#snapshotAgeMillis()}; default 0.
     *
     * @param v milliseconds; non-negative and finite
     * @return this builder
     */
    public Builder snapshotAgeMillis(double v) {
      set = Checks.once(set, Option.SNAPSHOT_AGE_MILLIS);
      snapshotAgeMillis = Checks.nonNegativeFinite(v, "snapshotAgeMillis");
      return this;
    }

    /**
     * Sets {@link CandidateView#telemetryStale()}; default {@code false}.
     *
     * @param v whether the report is past the staleness limit
     * @return this builder
     */
    public Builder telemetryStale(boolean v) {
      set = Checks.once(set, Option.TELEMETRY_STALE);
      telemetryStale = v;
      return this;
    }

    /**
     * In-flight requests and their prompt plus planned output tokens (all counted as prompt).
     *
     * @param requests in-flight requests; {@code >= 0}
     * @param tokens their prompt plus planned output tokens; {@code >= 0}
     * @return this builder
     */
    public Builder inFlight(int requests, long tokens) {
      return inFlight(requests, tokens, tokens);
    }

    /**
     * In-flight requests, their prompt plus planned output tokens, and their prompt tokens.
     *
     * @param requests in-flight requests; {@code >= 0}
     * @param tokens their prompt plus planned output tokens; {@code >= 0}
     * @param promptTokens their prompt tokens alone; in {@code [0, tokens]}
     * @return this builder
     */
    public Builder inFlight(int requests, long tokens, long promptTokens) {
      set = Checks.once(set, Option.IN_FLIGHT);
      inFlightRequests = Checks.atLeast(requests, 0, "inFlightRequests");
      inFlightTokens = Checks.atLeast(tokens, 0L, "inFlightTokens");
      Checks.atLeast(promptTokens, 0L, "inFlightPromptTokens");
      Checks.argument(promptTokens <= tokens, "inFlightPromptTokens", promptTokens,
          "<= inFlightTokens = " + tokens);
      inFlightPromptTokens = promptTokens;
      return this;
    }

    /**
     * Sets {@link CandidateView#dispatchedSinceSnapshot()}; default 0.
     *
     * @param v requests; {@code >= 0}
     * @return this builder
     */
    public Builder dispatchedSinceSnapshot(int v) {
      set = Checks.once(set, Option.DISPATCHED_SINCE_SNAPSHOT);
      dispatchedSinceSnapshot = Checks.atLeast(v, 0, "dispatchedSinceSnapshot");
      return this;
    }

    /**
     * Sets {@link CandidateView#estimatedQueueMillis()}; default 0.
     *
     * @param v milliseconds; non-negative and finite
     * @return this builder
     */
    public Builder estimatedQueueMillis(double v) {
      set = Checks.once(set, Option.ESTIMATED_QUEUE_MILLIS);
      estimatedQueueMillis = Checks.nonNegativeFinite(v, "estimatedQueueMillis");
      return this;
    }

    /**
     * Sets {@link CandidateView#queueUncertaintyMillis()}; default 0.
     *
     * @param v milliseconds; non-negative and finite
     * @return this builder
     */
    public Builder queueUncertaintyMillis(double v) {
      set = Checks.once(set, Option.QUEUE_UNCERTAINTY_MILLIS);
      queueUncertaintyMillis = Checks.nonNegativeFinite(v, "queueUncertaintyMillis");
      return this;
    }

    /**
     * Defaults to {@link #estimatedQueueMillis(double)}'s value.
     *
     * @param v the corrected queue estimate in milliseconds; non-negative and finite
     * @return this builder
     */
    public Builder calibratedQueueMillis(double v) {
      set = Checks.once(set, Option.CALIBRATED_QUEUE_MILLIS);
      calibratedQueueMillis = Checks.nonNegativeFinite(v, "calibratedQueueMillis");
      return this;
    }

    /**
     * Sets {@link CandidateView#estimatedOutstandingTokens()}; default 0.
     *
     * @param v tokens; {@code >= 0}
     * @return this builder
     */
    public Builder estimatedOutstandingTokens(long v) {
      set = Checks.once(set, Option.ESTIMATED_OUTSTANDING_TOKENS);
      estimatedOutstandingTokens = Checks.atLeast(v, 0L, "estimatedOutstandingTokens");
      return this;
    }

    /**
     * Matched prefix, in blocks and in tokens.
     *
     * @param blocks leading prompt blocks believed held; {@code >= 0}
     * @param tokens leading prompt tokens believed held; {@code >= 0}
     * @return this builder
     */
    public Builder matched(int blocks, int tokens) {
      set = Checks.once(set, Option.MATCHED);
      matchedBlocks = Checks.atLeast(blocks, 0, "matchedBlocks");
      matchedTokens = Checks.atLeast(tokens, 0, "matchedTokens");
      return this;
    }

    /**
     * Blocks the prefix cache is believed to hold, and its capacity in blocks.
     *
     * @param cachedBlocks blocks believed held; {@code >= 0}
     * @param capacityBlocks blocks the cache can hold; {@code >= 1} (default unbounded)
     * @return this builder
     */
    public Builder cache(long cachedBlocks, long capacityBlocks) {
      set = Checks.once(set, Option.CACHE);
      this.cachedBlocks = Checks.atLeast(cachedBlocks, 0L, "cachedBlocks");
      this.cacheCapacityBlocks = Checks.atLeast(capacityBlocks, 1L, "cacheCapacityBlocks");
      return this;
    }

    /**
     * The prefill cost here; default {@link DefaultPrefillCost}'s, the router's own default.
     *
     * @param overheadMillis fixed cost of a prefill, in milliseconds; non-negative and finite
     * @param millisPerToken cost per missing prompt token, in milliseconds; non-negative and finite
     * @return this builder
     */
    public Builder prefill(double overheadMillis, double millisPerToken) {
      set = Checks.once(set, Option.PREFILL);
      prefillOverheadMillis = Checks.nonNegativeFinite(overheadMillis, "prefillOverheadMillis");
      prefillMillisPerToken = Checks.nonNegativeFinite(millisPerToken, "prefillMillisPerToken");
      return this;
    }

    /**
     * Sets {@link CandidateView#adapterLoadMillis()}; default 0.
     *
     * @param v milliseconds; non-negative and finite
     * @return this builder
     */
    public Builder adapterLoadMillis(double v) {
      set = Checks.once(set, Option.ADAPTER_LOAD_MILLIS);
      adapterLoadMillis = Checks.nonNegativeFinite(v, "adapterLoadMillis");
      return this;
    }

    /**
     * Sets {@link CandidateView#kvTransferMillis()}; default 0.
     *
     * @param v milliseconds; non-negative and finite
     * @return this builder
     */
    public Builder kvTransferMillis(double v) {
      set = Checks.once(set, Option.KV_TRANSFER_MILLIS);
      kvTransferMillis = Checks.nonNegativeFinite(v, "kvTransferMillis");
      return this;
    }

    /**
     * Sets {@link CandidateView#kvUtilization()}; unset means unknown.
     *
     * @param v the used fraction, in {@code [0, 1]}
     * @return this builder
     */
    public Builder kvUtilization(double v) {
      set = Checks.once(set, Option.KV_UTILIZATION);
      Checks.argument(v >= 0 && v <= 1, "kvUtilization", v, "in [0, 1]");
      kvUtilization = OptionalDouble.of(v);
      return this;
    }

    /**
     * Sets {@link CandidateView#freeKvTokens()}; unset means unknown.
     *
     * @param v tokens; {@code >= 0}
     * @return this builder
     */
    public Builder freeKvTokens(long v) {
      set = Checks.once(set, Option.FREE_KV_TOKENS);
      freeKvTokens = OptionalLong.of(Checks.atLeast(v, 0L, "freeKvTokens"));
      return this;
    }

    /**
     * Sets {@link CandidateView#unseenArrivalsPerSecond()}; default 0.
     *
     * @param v requests per second; non-negative and finite
     * @return this builder
     */
    public Builder unseenArrivalsPerSecond(double v) {
      set = Checks.once(set, Option.UNSEEN_ARRIVALS_PER_SECOND);
      unseenArrivalsPerSecond = Checks.nonNegativeFinite(v, "unseenArrivalsPerSecond");
      return this;
    }

    /**
     * Sets {@link CandidateView#arrivalsPerSecond()}; default 0.
     *
     * @param v requests per second; non-negative and finite
     * @return this builder
     */
    public Builder arrivalsPerSecond(double v) {
      set = Checks.once(set, Option.ARRIVALS_PER_SECOND);
      arrivalsPerSecond = Checks.nonNegativeFinite(v, "arrivalsPerSecond");
      return this;
    }

    /**
     * Sets {@link CandidateView#meanRequestCostMillis()}; default 0.
     *
     * @param v milliseconds; non-negative and finite
     * @return this builder
     */
    public Builder meanRequestCostMillis(double v) {
      set = Checks.once(set, Option.MEAN_REQUEST_COST_MILLIS);
      meanRequestCostMillis = Checks.nonNegativeFinite(v, "meanRequestCostMillis");
      return this;
    }

    /**
     * Sets {@link CandidateView#cacheHitReliability()}; default 1.
     *
     * @param v reliability, in {@code [0, 1]}
     * @return this builder
     */
    public Builder cacheHitReliability(double v) {
      set = Checks.once(set, Option.CACHE_HIT_RELIABILITY);
      Checks.argument(v >= 0 && v <= 1, "cacheHitReliability", v, "in [0, 1]");
      cacheHitReliability = v;
      return this;
    }

    /**
     * Sets {@link CandidateView#recentTtftMillis()}; unset means none measured yet.
     *
     * @param v milliseconds; non-negative and finite
     * @return this builder
     */
    public Builder recentTtftMillis(double v) {
      set = Checks.once(set, Option.RECENT_TTFT_MILLIS);
      recentTtftMillis = OptionalDouble.of(Checks.nonNegativeFinite(v, "recentTtftMillis"));
      return this;
    }

    /**
     * Sets {@link CandidateView#cacheFromEvents()}; default false.
     *
     * @param v whether the replica's index follows its KV events
     * @return this builder
     */
    public Builder cacheFromEvents(boolean v) {
      set = Checks.once(set, Option.CACHE_FROM_EVENTS);
      cacheFromEvents = v;
      return this;
    }

    /**
     * Builds the view; without a snapshot, a minimal READY report for model "model" is assumed.
     *
     * @return the immutable view
     */
    public CandidateView build() {
      ReplicaSnapshot s = snapshot != null ? snapshot
          : ReplicaSnapshot.newBuilder().replicaId(replicaId).epoch(epoch).role(role).model("model")
              .build();
      return new FixedCandidateView(this, s);
    }
  }
}
