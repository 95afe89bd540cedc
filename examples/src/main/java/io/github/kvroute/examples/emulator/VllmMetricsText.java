package io.github.kvroute.examples.emulator;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * An emulated engine's {@code /metrics} in the Prometheus text format, under vLLM's (V1 engine) metric
 * names and labels: the gauges {@code vllm:num_requests_running}, {@code vllm:num_requests_waiting},
 * {@code vllm:kv_cache_usage_perc} (a fraction, despite the name); the counters
 * {@code vllm:prompt_tokens_total}, {@code vllm:generation_tokens_total},
 * {@code vllm:prefix_cache_queries_total}, {@code vllm:prefix_cache_hits_total} (in tokens),
 * {@code vllm:num_preemptions_total}, {@code vllm:request_success_total}; the histograms'
 * {@code _sum} and {@code _count} of {@code vllm:time_to_first_token_seconds},
 * {@code vllm:request_queue_time_seconds} and {@code vllm:request_prefill_time_seconds} (with only the
 * {@code +Inf} bucket); the info gauge
 * {@code vllm:cache_config_info} carrying {@code block_size} and {@code num_gpu_blocks}; and
 * {@code process_start_time_seconds}, which tells a restarted process from the one before.
 *
 * <p>Thread-safety: stateless, thread-safe.
 */
final class VllmMetricsText {
  private VllmMetricsText() {}

  static String render(String model, EngineModel m, EmulatedEngine.MetricsReading r,
      double startTimeSeconds) {
    EmulatedEngine.EngineCounters c = r.counters();
    String labels = "{engine=\"0\",model_name=\"" + model + "\"}";
    StringBuilder out = new StringBuilder(2048);
    gauge(out, "vllm:num_requests_running", "Number of requests in model execution batches.",
        labels, r.running());
    gauge(out, "vllm:num_requests_waiting", "Number of requests waiting to be processed.",
        labels, r.waiting());
    gauge(out, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.",
        labels, r.kvUsage());
    counter(out, "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
        labels, c.prefixCacheQueries);
    counter(out, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
        labels, c.prefixCacheHits);
    counter(out, "vllm:num_preemptions", "Cumulative number of preemption from the engine.",
        labels, 0);
    counter(out, "vllm:prompt_tokens", "Number of prefill tokens processed.", labels, c.promptTokens);
    counter(out, "vllm:generation_tokens", "Number of generation tokens processed.", labels,
        c.generationTokens);
    counter(out, "vllm:request_success", "Count of successfully processed requests.",
        "{engine=\"0\",finished_reason=\"length\",model_name=\"" + model + "\"}", c.finished);
    histogram(out, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
        model, c.ttftNanos / 1e9, c.firstTokens);
    histogram(out, "vllm:request_queue_time_seconds",
        "Histogram of time spent in WAITING phase for request.", model, c.queueNanos / 1e9,
        c.firstTokens);
    histogram(out, "vllm:request_prefill_time_seconds",
        "Histogram of time spent in PREFILL phase for request.", model, c.prefillNanos / 1e9,
        c.firstTokens);
    out.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n")
        .append("# TYPE vllm:cache_config_info gauge\n")
        .append("vllm:cache_config_info{block_size=\"").append(m.blockSizeTokens())
        .append("\",cache_dtype=\"auto\",enable_prefix_caching=\"True\",engine=\"0\",")
        .append("gpu_memory_utilization=\"0.9\",num_gpu_blocks=\"").append(m.kvCacheBlocks())
        .append("\",num_cpu_blocks=\"None\"} 1.0\n");
    out.append("# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n")
        .append("# TYPE process_start_time_seconds gauge\n")
        .append("process_start_time_seconds ").append(number(startTimeSeconds)).append('\n');
    return out.toString();
  }

  private static void gauge(StringBuilder out, String name, String help, String labels,
      double value) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n')
        .append("# TYPE ").append(name).append(" gauge\n")
        .append(name).append(labels).append(' ').append(number(value)).append('\n');
  }

  private static void counter(StringBuilder out, String name, String help, String labels,
      long value) {
    out.append("# HELP ").append(name).append("_total ").append(help).append('\n')
        .append("# TYPE ").append(name).append("_total counter\n")
        .append(name).append("_total").append(labels).append(' ').append(number(value)).append('\n');
  }

  private static void histogram(StringBuilder out, String name, String help, String model,
      double sum, long count) {
    String labels = "engine=\"0\",model_name=\"" + model + "\"";
    out.append("# HELP ").append(name).append(' ').append(help).append('\n')
        .append("# TYPE ").append(name).append(" histogram\n")
        .append(name).append("_bucket{").append(labels).append(",le=\"+Inf\"} ")
        .append(number(count)).append('\n')
        .append(name).append("_count{").append(labels).append("} ").append(number(count)).append('\n')
        .append(name).append("_sum{").append(labels).append("} ").append(number(sum)).append('\n');
  }

  /**
   * A value as vLLM's Prometheus client (Python) writes it: {@code 3.0} for whole numbers, else the
   * shortest decimal that reads back as the value, without an exponent ({@code 0.000408879},
   * {@code 1796115152.169}).
   */
  static String number(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return new BigDecimal(Double.toString(v)).toPlainString();
  }
}
