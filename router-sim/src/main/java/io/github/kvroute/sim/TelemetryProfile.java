package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkNotNull;

import io.github.kvroute.api.LatencyTotals;
import io.github.kvroute.api.ReplicaSnapshot;
import java.util.Arrays;
import java.util.Optional;

/**
 * What the routers are told about each replica: exactly what one engine's stock endpoints give (or,
 * for {@link #INSTRUMENTED}, what an engine patched to export its scheduler's internals would give).
 * Every profile also carries what any gateway knows without reading metrics: the replica's id, its
 * process epoch (Prometheus' {@code process_start_time_seconds}), its state (the {@code /health}
 * endpoint) and the served model; and every profile lets the gateway see its own dispatches, each
 * response's first streamed token, and its completion ({@code usage}). The metric each field comes from
 * is named where the field is set below.
 *
 * <p>Only {@link #INSTRUMENTED} outcomes carry the engine-side queue time: a gateway measures TTFT
 * itself, but nothing in a stock response says how long the request waited inside the engine.
 *
 * <p>Immutable and thread-safe.
 */
public enum TelemetryProfile {
  /** Stock vLLM {@code /metrics}, scraped; no KV events (vLLM publishes none unless configured). */
  VLLM("vllm", false) {
    @Override
    void report(ReplicaEngine r, ReplicaSnapshot.Builder b, double generationTokensPerSecond) {
      vllmMetrics(r, b);
    }
  },

  /**
   * {@link #VLLM} plus vLLM's KV-event stream ({@code BlockStored}, {@code BlockRemoved},
   * {@code AllBlocksCleared}).
   */
  VLLM_KV_EVENTS("vllm-kv-events", true) {
    @Override
    void report(ReplicaEngine r, ReplicaSnapshot.Builder b, double generationTokensPerSecond) {
      vllmMetrics(r, b);
    }
  },

  /** Stock SGLang {@code /metrics} (started with {@code --enable-metrics}), scraped; no KV events. */
  SGLANG("sglang", false) {
    @Override
    void report(ReplicaEngine r, ReplicaSnapshot.Builder b, double generationTokensPerSecond) {
      EngineCounters c = r.counters;
      int block = r.kv.blockSize();
      b.runningRequests(r.runningCount())                         // sglang:num_running_reqs
          .waitingRequests(r.waitingCount())                      // sglang:num_queue_reqs
          // sglang:num_used_tokens of sglang:max_total_num_tokens (token_usage is their ratio);
          // the pool is paged by token (page_size 1)
          .kvBlocks(r.kv.usedBlocks() * (long) block, r.kv.totalBlocks() * (long) block)
          .kvBlockSizeTokens(1)
          .promptTokensTotal(c.promptTokensFinished)              // sglang:prompt_tokens_total
          .generationTokensTotal(c.generatedTokensFinished)       // sglang:generation_tokens_total
          .timeToFirstToken(seconds(c.ttftNanosSum, c.ttftCount)); // sglang:time_to_first_token_seconds
      if (!Double.isNaN(c.lastPrefillBatchHitRate)) {
        b.cacheHitRate(c.lastPrefillBatchHitRate);                // sglang:cache_hit_rate
      }
      if (!Double.isNaN(generationTokensPerSecond)) {
        b.generationTokensPerSecond(generationTokensPerSecond);   // sglang:gen_throughput
      }
    }
  },

  /**
   * An engine patched to export its scheduler's state: queued prefill tokens, outstanding decode
   * tokens, its true prefill throughput and decode step time, and requests received. Its KV events
   * follow {@link Scenario#kvEvents()}.
   */
  INSTRUMENTED("instrumented", false) {
    @Override
    void report(ReplicaEngine r, ReplicaSnapshot.Builder b, double generationTokensPerSecond) {
      ReplicaModel m = r.model;
      b.waitingRequests(r.waitingCount())
          .runningRequests(r.runningCount())
          .queuedPrefillTokens(r.queuedPrefillTokens())
          .outstandingDecodeTokens(r.outstandingDecodeTokens())
          .kvBlocks(r.kv.usedBlocks(), r.kv.totalBlocks())
          .kvBlockSizeTokens(r.kv.blockSize())
          .residentAdapters(r.adapters.residentSet())
          .prefillTokensPerSecond(1000.0 / m.prefillMillisPerToken())
          .decodeStepMillis(r.decodeStepMillis())
          .requestsReceivedTotal(r.requestsReceived());
    }
  };

  private final String cliName;
  private final boolean kvEvents;

  TelemetryProfile(String cliName, boolean kvEvents) {
    this.cliName = cliName;
    this.kvEvents = kvEvents;
  }

  /**
   * {@return the profile's name on the command line ({@code vllm}, {@code vllm-kv-events}, ...)}
   */
  public String cliName() {
    return cliName;
  }

  /** {@return whether replicas publish KV events under this profile regardless of the scenario} */
  public boolean alwaysKvEvents() {
    return kvEvents;
  }

  /** {@return whether a scenario may ask for KV events under this profile} */
  public boolean allowsKvEvents() {
    return kvEvents || this == INSTRUMENTED;
  }

  /**
   * {@return whether outcomes carry the engine-side queue time (only a patched engine reports it)}
   */
  public boolean outcomeQueueTime() {
    return this == INSTRUMENTED;
  }

  /**
   * The profile called {@code name} on the command line.
   *
   * @param name the profile's command-line name, such as {@code vllm}
   * @return the profile; empty when none has that name
   */
  public static Optional<TelemetryProfile> named(String name) {
    checkNotNull(name, "name: null (expected: a telemetry profile name)");
    return Arrays.stream(values()).filter(p -> p.cliName.equals(name)).findFirst();
  }

  @Override
  public String toString() {
    return cliName;
  }

  /**
   * Adds the load fields this profile reports for {@code r} now to {@code b} (identity, epoch, state
   * and model are already set); {@code generationTokensPerSecond} is the decode rate since the
   * replica's previous report, NaN when there is none.
   */
  abstract void report(ReplicaEngine r, ReplicaSnapshot.Builder b, double generationTokensPerSecond);

  private static void vllmMetrics(ReplicaEngine r, ReplicaSnapshot.Builder b) {
    EngineCounters c = r.counters;
    long total = r.kv.totalBlocks();
    b.waitingRequests(r.waitingCount())                           // vllm:num_requests_waiting
        .runningRequests(r.runningCount())                        // vllm:num_requests_running
        // vllm:kv_cache_usage_perc of num_gpu_blocks, block_size (vllm:cache_config_info)
        .kvUsage(total == 0 ? 0 : (double) r.kv.usedBlocks() / total, total)
        .kvBlockSizeTokens(r.kv.blockSize())
        .residentAdapters(r.adapters.residentSet())               // GET /v1/models
        .promptTokensTotal(c.promptTokensAtFirstToken)            // vllm:prompt_tokens_total
        .generationTokensTotal(r.generationTokensTotal())         // vllm:generation_tokens_total
        // vllm:prefix_cache_queries_total, vllm:prefix_cache_hits_total
        .prefixCache(c.prefixCacheQueries, c.prefixCacheHits)
        .preemptionsTotal(c.preemptions)                          // vllm:num_preemptions_total
        .timeToFirstToken(seconds(c.ttftNanosSum, c.ttftCount))   // vllm:time_to_first_token_seconds
        .queueTime(seconds(c.queueNanosSum, c.finishedCount))     // vllm:request_queue_time_seconds
        .prefillTime(seconds(c.prefillNanosSum, c.finishedCount)); // vllm:request_prefill_time_seconds
  }

  private static LatencyTotals seconds(long nanosSum, long count) {
    return new LatencyTotals(count == 0 ? 0 : nanosSum / 1e9, count);
  }
}
