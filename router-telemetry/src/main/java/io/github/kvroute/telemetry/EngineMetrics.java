package io.github.kvroute.telemetry;

import io.github.kvroute.api.LatencyTotals;
import io.github.kvroute.api.ReplicaSnapshot;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Which engine's metric names a replica exports, and how they become {@link ReplicaSnapshot} fields.
 * The mapping is the one kvroute's simulator feeds its routers under the {@code vllm} and
 * {@code sglang} telemetry profiles (docs/telemetry.md has the tables), so a policy tuned in simulation
 * sees the same fields in production.
 *
 * <p>Rules shared by both engines: several series of one metric (vLLM's {@code engine} label under data
 * parallelism, SGLang's {@code dp_rank}) are summed, except a usage fraction, which is averaged; a
 * metric that is absent, NaN, infinite or negative leaves its field absent ("unknown is absent, never
 * zero") and is named in {@link ScrapeStatus#problems()}; the epoch is Prometheus'
 * {@code process_start_time_seconds} in nanoseconds (both engines' Python client exports it).
 *
 * <p>Immutable and thread-safe.
 */
public enum EngineMetrics {
  /**
   * vLLM (V1 engine). {@code vllm:num_requests_waiting}, {@code vllm:num_requests_running},
   * {@code vllm:kv_cache_usage_perc} (a fraction; before vLLM 0.10 {@code vllm:gpu_cache_usage_perc})
   * of {@code num_gpu_blocks} with {@code block_size} from the labels of {@code vllm:cache_config_info},
   * {@code vllm:prompt_tokens_total}, {@code vllm:generation_tokens_total},
   * {@code vllm:prefix_cache_queries_total} and {@code _hits_total} (older
   * {@code vllm:gpu_prefix_cache_*}), {@code vllm:num_preemptions_total}, and the sums and counts of
   * the {@code vllm:time_to_first_token_seconds}, {@code vllm:request_queue_time_seconds} and
   * {@code vllm:request_prefill_time_seconds} histograms. Loaded LoRA adapters come from
   * {@code GET /v1/models} (entries with a {@code parent}).
   */
  VLLM {
    @Override
    void apply(Exposition e, ReplicaSnapshot.Builder b, FieldProblems p) {
      count(e, "vllm:num_requests_waiting", p).ifPresent(v -> b.waitingRequests(toInt(v)));
      count(e, "vllm:num_requests_running", p).ifPresent(v -> b.runningRequests(toInt(v)));
      Optional<Sample> cacheConfig = e.first("vllm:cache_config_info");
      OptionalLong blocks = cacheConfig.map(s -> labelCount(s, "num_gpu_blocks", p))
          .orElse(OptionalLong.empty());
      OptionalLong blockSize = cacheConfig.map(s -> labelCount(s, "block_size", p))
          .orElse(OptionalLong.empty());
      if (cacheConfig.isEmpty()) {
        p.missing("vllm:cache_config_info");
      }
      OptionalDouble usage = fraction(e, p, "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc");
      if (usage.isPresent() && blocks.isPresent()) {
        p.guard("vllm:kv_cache_usage_perc", () -> b.kvUsage(usage.getAsDouble(), blocks.getAsLong()));
      }
      if (blockSize.isPresent() && blockSize.getAsLong() >= 1 && blockSize.getAsLong() <= Integer.MAX_VALUE) {
        b.kvBlockSizeTokens((int) blockSize.getAsLong());
      }
      count(e, "vllm:prompt_tokens_total", p).ifPresent(b::promptTokensTotal);
      count(e, "vllm:generation_tokens_total", p).ifPresent(b::generationTokensTotal);
      String queries = e.has("vllm:prefix_cache_queries_total") ? "vllm:prefix_cache_queries_total"
          : "vllm:gpu_prefix_cache_queries_total";
      String hits = e.has("vllm:prefix_cache_hits_total") ? "vllm:prefix_cache_hits_total"
          : "vllm:gpu_prefix_cache_hits_total";
      OptionalLong q = count(e, queries, p);
      OptionalLong h = count(e, hits, p);
      if (q.isPresent() && h.isPresent()) {
        p.guard(hits, () -> b.prefixCache(q.getAsLong(), h.getAsLong()));
      }
      count(e, "vllm:num_preemptions_total", p).ifPresent(b::preemptionsTotal);
      latency(e, "vllm:time_to_first_token_seconds", p).ifPresent(b::timeToFirstToken);
      latency(e, "vllm:request_queue_time_seconds", p).ifPresent(b::queueTime);
      latency(e, "vllm:request_prefill_time_seconds", p).ifPresent(b::prefillTime);
    }

    @Override
    boolean listsAdapters() {
      return true;
    }
  },

  /**
   * SGLang (started with {@code --enable-metrics}). {@code sglang:num_running_reqs},
   * {@code sglang:num_queue_reqs}, KV as {@code sglang:num_used_tokens} of
   * {@code sglang:max_total_num_tokens} with a block size of 1 (SGLang's pool is paged by token; when
   * only {@code sglang:token_usage} is exported, used = usage x max), {@code sglang:prompt_tokens_total},
   * {@code sglang:generation_tokens_total} (counted when a request finishes),
   * {@code sglang:cache_hit_rate}, {@code sglang:gen_throughput}, and the sum and count of
   * {@code sglang:time_to_first_token_seconds}.
   */
  SGLANG {
    @Override
    void apply(Exposition e, ReplicaSnapshot.Builder b, FieldProblems p) {
      count(e, "sglang:num_running_reqs", p).ifPresent(v -> b.runningRequests(toInt(v)));
      count(e, "sglang:num_queue_reqs", p).ifPresent(v -> b.waitingRequests(toInt(v)));
      OptionalLong max = count(e, "sglang:max_total_num_tokens", p);
      OptionalLong used = e.has("sglang:num_used_tokens") ? count(e, "sglang:num_used_tokens", p)
          : OptionalLong.empty();
      if (used.isEmpty() && max.isPresent()) {
        OptionalDouble usage = fraction(e, p, "sglang:token_usage");
        if (usage.isPresent()) {
          used = OptionalLong.of(Math.round(usage.getAsDouble() * max.getAsLong()));
        }
      }
      if (used.isPresent() && max.isPresent()) {
        long u = Math.min(used.getAsLong(), max.getAsLong());
        p.guard("sglang:num_used_tokens", () -> b.kvBlocks(u, max.getAsLong()));
        b.kvBlockSizeTokens(1);
      }
      count(e, "sglang:prompt_tokens_total", p).ifPresent(b::promptTokensTotal);
      count(e, "sglang:generation_tokens_total", p).ifPresent(b::generationTokensTotal);
      fraction(e, p, "sglang:cache_hit_rate").ifPresent(b::cacheHitRate);
      nonNegative(e, "sglang:gen_throughput", p).ifPresent(b::generationTokensPerSecond);
      latency(e, "sglang:time_to_first_token_seconds", p).ifPresent(b::timeToFirstToken);
    }

    @Override
    boolean listsAdapters() {
      return false;
    }
  };

  /** Prometheus' process start time, exported by both engines' Python client. */
  static final String PROCESS_START = "process_start_time_seconds";

  /** Adds this engine's load fields found in {@code e} to {@code b}; problems go to {@code p}. */
  abstract void apply(Exposition e, ReplicaSnapshot.Builder b, FieldProblems p);

  /** Whether {@code GET /v1/models} lists this engine's loaded adapters by default. */
  abstract boolean listsAdapters();

  /**
   * The replica's epoch: its process start time in nanoseconds since the Unix epoch, from
   * {@code process_start_time_seconds}; empty when the exposition lacks it or it is not a plausible
   * time.
   *
   * @param e one scrape of the replica's {@code /metrics}
   * @return the epoch in nanoseconds, what the poller reports as {@code ReplicaSnapshot.epoch}
   */
  public static OptionalLong epochNanos(Exposition e) {
    OptionalDouble start = e.first(PROCESS_START).map(s -> OptionalDouble.of(s.value()))
        .orElse(OptionalDouble.empty());
    if (start.isEmpty() || !(start.getAsDouble() > 0)
        || start.getAsDouble() * 1e9 > ReplicaSnapshot.MAX_EPOCH) {
      return OptionalLong.empty();
    }
    // through the decimal form, so 1.76181619213e9 s is exactly 1761816192130000000 ns
    return OptionalLong.of(new java.math.BigDecimal(Double.toString(start.getAsDouble()))
        .movePointRight(9).setScale(0, java.math.RoundingMode.HALF_EVEN).longValue());
  }

  private static int toInt(long v) {
    return (int) Math.min(v, Integer.MAX_VALUE);
  }

  /** The sum of {@code name}'s series as a non-negative count (rounded). */
  static OptionalLong count(Exposition e, String name, FieldProblems p) {
    OptionalDouble v = nonNegative(e, name, p);
    return v.isPresent() ? OptionalLong.of(Math.round(Math.min(v.getAsDouble(), 0x1p62)))
        : OptionalLong.empty();
  }

  private static OptionalDouble nonNegative(Exposition e, String name, FieldProblems p) {
    OptionalDouble v = e.sum(name);
    if (v.isEmpty()) {
      p.missing(name);
      return v;
    }
    double d = v.getAsDouble();
    if (!Double.isFinite(d) || d < 0) {
      p.invalid(name, d, "a finite value >= 0");
      return OptionalDouble.empty();
    }
    return v;
  }

  /** The mean of the first present name's series as a fraction, clamped into [0, 1] within 1e-6. */
  private static OptionalDouble fraction(Exposition e, FieldProblems p, String... names) {
    for (String name : names) {
      OptionalDouble v = e.mean(name);
      if (v.isEmpty()) {
        continue;
      }
      double d = v.getAsDouble();
      if (!(d >= -1e-6 && d <= 1 + 1e-6)) {
        p.invalid(name, d, "a fraction in [0, 1]");
        return OptionalDouble.empty();
      }
      return OptionalDouble.of(Math.max(0, Math.min(1, d)));
    }
    p.missing(names[0]);
    return OptionalDouble.empty();
  }

  private static OptionalLong labelCount(Sample s, String label, FieldProblems p) {
    String v = s.label(label);
    if (v == null || v.equals("None")) {
      p.missing(s.name() + "{" + label + "}");
      return OptionalLong.empty();
    }
    try {
      long n = Long.parseLong(v);
      if (n < 0) {
        p.invalid(s.name() + "{" + label + "}", n, "an integer >= 0");
        return OptionalLong.empty();
      }
      return OptionalLong.of(n);
    } catch (NumberFormatException ex) {
      p.invalid(s.name() + "{" + label + "}", v, "an integer");
      return OptionalLong.empty();
    }
  }

  private static Optional<LatencyTotals> latency(Exposition e, String histogram, FieldProblems p) {
    OptionalDouble sum = nonNegative(e, histogram + "_sum", p);
    OptionalLong count = count(e, histogram + "_count", p);
    if (sum.isEmpty() || count.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new LatencyTotals(sum.getAsDouble(), count.getAsLong()));
  }

  /** What a scrape could not map, by metric; bounded by the number of metrics an engine maps. */
  static final class FieldProblems {
    private final java.util.ArrayList<String> problems = new java.util.ArrayList<>();

    void missing(String metric) {
      problems.add(metric + ": absent");
    }

    void invalid(String metric, Object value, String expected) {
      problems.add(metric + ": " + value + " (expected: " + expected + ")");
    }

    /** Runs a builder call whose argument checks may reject the engine's values. */
    void guard(String metric, Runnable set) {
      try {
        set.run();
      } catch (IllegalArgumentException ex) {
        problems.add(metric + ": " + ex.getMessage());
      }
    }

    List<String> list() {
      return List.copyOf(problems);
    }
  }
}
