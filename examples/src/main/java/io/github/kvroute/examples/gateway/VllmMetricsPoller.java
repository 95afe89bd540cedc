package io.github.kvroute.examples.gateway;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.collect.ImmutableMap;
import io.github.kvroute.api.LatencyTotals;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.TelemetrySink;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The smallest telemetry the gateway example needs: every {@code interval}, scrape each vLLM
 * replica's {@code /metrics} with the JDK's HTTP client and report a {@link ReplicaSnapshot} to the
 * router. A replica that refuses the connection is reported {@link ReplicaState#STOPPED} in its last
 * known epoch at once (nothing listens there any more); one whose scrapes fail otherwise (time out,
 * answer other than 200) is reported STOPPED after {@value #FAILURES_TO_STOP} failures in a row, so
 * one slow scrape does not orphan a healthy replica's requests. The router then stops routing there
 * and orphans what it had in flight; the next good scrape reports the replica READY again.
 *
 * <p>What it reads: {@code vllm:num_requests_waiting}, {@code vllm:num_requests_running},
 * {@code vllm:kv_cache_usage_perc} (a fraction) of {@code num_gpu_blocks} with {@code block_size} from
 * {@code vllm:cache_config_info}, the prompt, generation, prefix-cache and preemption counters, the
 * TTFT, queue-time and prefill-time sums (the fields the simulator's {@code vllm} profile feeds), and {@code process_start_time_seconds} as the epoch (in milliseconds), so a restarted
 * process is a new epoch. A full adapter (SGLang names, per-replica schedules, rates) belongs in a
 * telemetry module; this one is kept to what the demo and its test use.
 *
 * <p>Thread-safety: thread-safe. Scrapes run on one scheduler thread and the HTTP client's threads.
 */
public final class VllmMetricsPoller implements ReplicaTelemetry {
  /** Failed scrapes in a row, other than a refused connection, that report a replica stopped. */
  public static final int FAILURES_TO_STOP = 3;
  /** How long one scrape may take. */
  public static final Duration SCRAPE_TIMEOUT = Duration.ofSeconds(2);

  private final TelemetrySink sink;
  private final ImmutableMap<String, URI> replicas;
  private final String model;
  private final Duration interval;
  private final HttpClient http;
  private final ScheduledExecutorService scheduler;
  /** Each replica's last reported epoch; one entry per replica. */
  private final Map<String, Long> epochs = new ConcurrentHashMap<>();
  /** Each replica's failed scrapes in a row; one entry per replica. */
  private final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();

  /**
   * @param replicas each replica's id and base URI (its {@code /metrics} is scraped)
   * @param model the model every replica serves
   * @param interval time between scrapes of a replica
   */
  public VllmMetricsPoller(TelemetrySink sink, Map<String, URI> replicas, String model,
      Duration interval) {
    this.sink = checkNotNull(sink, "sink: null (expected: the router)");
    this.replicas = ImmutableMap.copyOf(checkNotNull(replicas, "replicas"));
    this.model = checkNotNull(model, "model: null (expected: the served model)");
    checkArgument(interval != null && !interval.isNegative() && !interval.isZero(),
        "interval: %s (expected: > 0)", interval);
    this.interval = interval;
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1).connectTimeout(SCRAPE_TIMEOUT).build();
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "vllm-metrics-poller");
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public void start() {
    CompletableFuture.allOf(replicas.keySet().stream().map(this::refresh)
        .toArray(CompletableFuture[]::new)).join();
    long millis = interval.toMillis();
    scheduler.scheduleWithFixedDelay(
        () -> replicas.keySet().forEach(this::refresh), millis, millis, TimeUnit.MILLISECONDS);
  }

  @Override
  public CompletableFuture<Void> refresh(String replicaId) {
    URI base = replicas.get(replicaId);
    if (base == null) {
      return CompletableFuture.completedFuture(null);
    }
    HttpRequest request = HttpRequest.newBuilder(base.resolve("/metrics"))
        .timeout(SCRAPE_TIMEOUT).GET().build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
        .handle((response, error) -> {
          AtomicInteger failed = failures.computeIfAbsent(replicaId, id -> new AtomicInteger());
          if (error == null && response.statusCode() == 200) {
            failed.set(0);
            report(replicaId, PrometheusText.parse(response.body()));
          } else if (refused(error) || failed.incrementAndGet() >= FAILURES_TO_STOP) {
            reportStopped(replicaId);
          }
          return null;
        });
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }

  private static boolean refused(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  /** The snapshot one scrape of {@code replicaId} gives. */
  static ReplicaSnapshot snapshot(String replicaId, String model, PrometheusText m) {
    ReplicaSnapshot.Builder b = ReplicaSnapshot.newBuilder()
        .replicaId(replicaId).model(model).state(ReplicaState.READY)
        .epoch(Math.round(m.value("process_start_time_seconds").orElse(0) * 1000));
    m.value("vllm:num_requests_waiting").ifPresent(v -> b.waitingRequests((int) v));
    m.value("vllm:num_requests_running").ifPresent(v -> b.runningRequests((int) v));
    String blocks = m.label("vllm:cache_config_info", "num_gpu_blocks");
    String blockSize = m.label("vllm:cache_config_info", "block_size");
    OptionalDouble usage = m.value("vllm:kv_cache_usage_perc");
    if (blocks != null && usage.isPresent() && blocks.chars().allMatch(Character::isDigit)
        && !blocks.isEmpty()) {
      b.kvUsage(Math.min(1, Math.max(0, usage.getAsDouble())), Long.parseLong(blocks));
    }
    if (blockSize != null && !blockSize.isEmpty() && blockSize.chars().allMatch(Character::isDigit)) {
      b.kvBlockSizeTokens(Integer.parseInt(blockSize));
    }
    m.value("vllm:prompt_tokens_total").ifPresent(v -> b.promptTokensTotal((long) v));
    m.value("vllm:generation_tokens_total").ifPresent(v -> b.generationTokensTotal((long) v));
    OptionalDouble queries = m.value("vllm:prefix_cache_queries_total");
    OptionalDouble hits = m.value("vllm:prefix_cache_hits_total");
    if (queries.isPresent() && hits.isPresent()) {
      b.prefixCache((long) queries.getAsDouble(), (long) hits.getAsDouble());
    }
    totals(m, "vllm:time_to_first_token_seconds").ifPresent(b::timeToFirstToken);
    totals(m, "vllm:request_queue_time_seconds").ifPresent(b::queueTime);
    totals(m, "vllm:request_prefill_time_seconds").ifPresent(b::prefillTime);
    m.value("vllm:num_preemptions_total").ifPresent(v -> b.preemptionsTotal((long) v));
    return b.build();
  }

  private static Optional<LatencyTotals> totals(PrometheusText m, String histogram) {
    OptionalDouble sum = m.value(histogram + "_sum");
    OptionalDouble count = m.value(histogram + "_count");
    if (sum.isEmpty() || count.isEmpty() || sum.getAsDouble() < 0 || count.getAsDouble() < 0) {
      return Optional.empty();
    }
    return Optional.of(
        new LatencyTotals(sum.getAsDouble(), (long) count.getAsDouble()));
  }

  private void report(String replicaId, PrometheusText metrics) {
    ReplicaSnapshot s;
    try {
      s = snapshot(replicaId, model, metrics);
    } catch (IllegalArgumentException e) {
      // metrics that make no snapshot (a negative counter, say) are a sick replica
      reportStopped(replicaId);
      return;
    }
    epochs.put(replicaId, s.epoch());
    sink.onSnapshot(s);
  }

  private void reportStopped(String replicaId) {
    Long epoch = epochs.get(replicaId);
    if (epoch == null) {
      return; // never seen: the router does not know it, nothing to stop
    }
    sink.onSnapshot(ReplicaSnapshot.newBuilder().replicaId(replicaId).model(model)
        .epoch(epoch).state(ReplicaState.STOPPED).build());
  }
}
