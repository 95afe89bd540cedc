package io.github.kvroute.telemetry;

import static io.github.kvroute.telemetry.EngineMetricsTest.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.TelemetrySink;
import io.github.kvroute.api.UpdateResult;
import io.github.kvroute.core.ReplicaStatus;
import io.github.kvroute.core.Router;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PrometheusPollerTest {
  private static final URI BASE = URI.create("http://127.0.0.1:8000");
  private static final String MODELS = """
      {"object":"list","data":[
        {"id":"Qwen/Qwen2.5-0.5B-Instruct","object":"model","root":"Qwen/Qwen2.5-0.5B-Instruct","parent":null},
        {"id":"sql-lora","object":"model","root":"/adapters/sql","parent":"Qwen/Qwen2.5-0.5B-Instruct"}]}
      """;

  private final ManualTicker ticker = new ManualTicker(1_000_000_000L);
  private final FakeScrapeClient client = new FakeScrapeClient()
      .answer("/health", 200, "")
      .answer("/metrics", 200, resource("vllm-metrics.txt"))
      .answer("/v1/models", 200, MODELS);

  /** Records every snapshot; answers APPLIED. */
  private static class Recorder implements TelemetrySink {
    final List<ReplicaSnapshot> snapshots = new CopyOnWriteArrayList<>();

    @Override
    public UpdateResult onSnapshot(ReplicaSnapshot snapshot) {
      snapshots.add(snapshot);
      return UpdateResult.APPLIED;
    }

    @Override
    public UpdateResult onKvEvent(KvEvent event) {
      throw new AssertionError("the poller sends no KV events");
    }
  }

  private PrometheusPoller.Builder poller() {
    return PrometheusPoller.builder()
        .replica(ReplicaTarget.of("r0", "qwen", BASE, EngineMetrics.VLLM))
        .client(client)
        .ticker(ticker);
  }

  @Test
  void aScrapeBecomesASnapshotStampedByTheTickerWithEpochAndAdapters() {
    Recorder sink = new Recorder();
    try (PrometheusPoller p = poller().build()) {
      ScrapeStatus status = p.scrapeNow("r0", sink);

      assertThat(status.health()).isEqualTo(ScrapeHealth.UP);
      assertThat(status.scrapes()).isEqualTo(1);
      assertThat(status.problems()).isEmpty();
      ReplicaSnapshot s = sink.snapshots.get(0);
      assertThat(s.replicaId()).isEqualTo("r0");
      assertThat(s.model()).isEqualTo("qwen");
      assertThat(s.state()).isEqualTo(ReplicaState.READY);
      assertThat(s.observedAtNanos()).hasValue(1_000_000_000L);
      assertThat(s.epoch()).isEqualTo(1_761_816_192_130_000_000L);
      assertThat(s.residentAdapters()).isEqualTo(Set.of("sql-lora"));
      assertThat(s.kvBlockSizeTokens()).hasValue(16);
      assertThat(p.epoch("r0")).hasValue(1_761_816_192_130_000_000L);
      assertThat(client.asked).containsExactly("/health", "/metrics", "/v1/models");
    }
  }

  @Test
  void countersBecomeRatesBetweenScrapes() {
    Recorder sink = new Recorder();
    try (PrometheusPoller p = poller().build()) {
      p.scrapeNow("r0", sink);
      ticker.advanceSeconds(2);
      client.answer("/metrics", 200, resource("vllm-metrics.txt")
          .replace("vllm:prompt_tokens_total{engine=\"0\",model_name=\"Qwen/Qwen2.5-0.5B-Instruct\"} 102400.0",
              "vllm:prompt_tokens_total{engine=\"0\",model_name=\"Qwen/Qwen2.5-0.5B-Instruct\"} 112400.0")
          .replace("vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"Qwen/Qwen2.5-0.5B-Instruct\"} 102400.0",
              "vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"Qwen/Qwen2.5-0.5B-Instruct\"} 112400.0")
          .replace("vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"Qwen/Qwen2.5-0.5B-Instruct\"} 61440.0",
              "vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"Qwen/Qwen2.5-0.5B-Instruct\"} 63940.0")
          .replace("vllm:time_to_first_token_seconds_count{engine=\"0\",model_name=\"Qwen/Qwen2.5-0.5B-Instruct\"} 104.0",
              "vllm:time_to_first_token_seconds_count{engine=\"0\",model_name=\"Qwen/Qwen2.5-0.5B-Instruct\"} 114.0")
          .replace("vllm:time_to_first_token_seconds_sum{engine=\"0\",model_name=\"Qwen/Qwen2.5-0.5B-Instruct\"} 13.5",
              "vllm:time_to_first_token_seconds_sum{engine=\"0\",model_name=\"Qwen/Qwen2.5-0.5B-Instruct\"} 16.0"));
      CounterRates r = p.scrapeNow("r0", sink).rates().orElseThrow();

      assertThat(r.intervalSeconds()).isEqualTo(2.0);
      assertThat(r.promptTokensPerSecond()).hasValue(5000.0);     // 10,000 tokens in 2 s
      assertThat(r.generationTokensPerSecond()).hasValue(0.0);
      assertThat(r.prefixCacheHitRatio()).hasValue(0.25);         // 2,500 of 10,000
      assertThat(r.firstTokensPerSecond()).hasValue(5.0);         // 10 first tokens in 2 s
      assertThat(r.meanTimeToFirstTokenSeconds()).hasValue(0.25); // 2.5 s over 10
      assertThat(r.preemptionsPerSecond()).hasValue(0.0);
    }
  }

  @Test
  void aFailingScrapeIsAStateAndStopIsReportedOnceAfterTheThreshold() {
    Recorder sink = new Recorder();
    try (PrometheusPoller p = poller().reportStoppedAfter(2).build()) {
      p.scrapeNow("r0", sink);
      client.fail("/health", new ConnectException("Connection refused"));

      ScrapeStatus first = p.scrapeNow("r0", sink);
      assertThat(first.health()).isEqualTo(ScrapeHealth.FAILING);
      assertThat(first.consecutiveFailures()).isEqualTo(1);
      assertThat(first.lastError()).contains("ConnectException: Connection refused");
      assertThat(first.lastSnapshot()).as("the last good snapshot is kept").isPresent();
      assertThat(sink.snapshots).hasSize(1);

      ticker.advanceSeconds(1);
      ScrapeStatus second = p.scrapeNow("r0", sink);
      assertThat(second.consecutiveFailures()).isEqualTo(2);
      assertThat(second.reportedStopped()).isTrue();
      assertThat(sink.snapshots).hasSize(2);
      ReplicaSnapshot stopped = sink.snapshots.get(1);
      assertThat(stopped.state()).isEqualTo(ReplicaState.STOPPED);
      assertThat(stopped.epoch()).isEqualTo(sink.snapshots.get(0).epoch());
      assertThat(stopped.observedAtNanos()).hasValue(2_000_000_000L);

      p.scrapeNow("r0", sink);
      assertThat(sink.snapshots).as("STOPPED once per failure streak").hasSize(2);

      client.answer("/health", 200, "");
      ScrapeStatus back = p.scrapeNow("r0", sink);
      assertThat(back.health()).isEqualTo(ScrapeHealth.UP);
      assertThat(back.consecutiveFailures()).isZero();
      assertThat(back.failures()).isEqualTo(3);
      assertThat(back.scrapes()).isEqualTo(5);
      assertThat(sink.snapshots.get(2).state()).isEqualTo(ReplicaState.READY);
    }
  }

  @Test
  void aRefusedConnectionReportsStoppedAtOnceOnlyWhenAskedTo() {
    Recorder sink = new Recorder();
    try (PrometheusPoller p = poller().reportStoppedOnRefusal(true).build()) {
      p.scrapeNow("r0", sink);
      client.fail("/health", new java.net.http.HttpTimeoutException("request timed out"));
      assertThat(p.scrapeNow("r0", sink).reportedStopped()).as("a timeout waits for the streak").isFalse();
      client.fail("/health", new IOException("GET /health", new ConnectException("Connection refused")));

      ScrapeStatus refused = p.scrapeNow("r0", sink);
      assertThat(refused.consecutiveFailures()).isEqualTo(2);
      assertThat(refused.reportedStopped()).isTrue();
      assertThat(sink.snapshots).hasSize(2);
      assertThat(sink.snapshots.get(1).state()).isEqualTo(ReplicaState.STOPPED);
      p.scrapeNow("r0", sink);
      assertThat(sink.snapshots).as("STOPPED once per failure streak").hasSize(2);
    }
    Recorder patient = new Recorder();
    try (PrometheusPoller p = poller().build()) {
      client.answer("/health", 200, "");
      p.scrapeNow("r0", patient);
      client.fail("/health", new ConnectException("Connection refused"));
      assertThat(p.scrapeNow("r0", patient).reportedStopped()).as("off by default").isFalse();
      assertThat(patient.snapshots).hasSize(1);
    }
  }

  @Test
  void scrapeAsyncScrapesOnTheSchedulerAndNeverFailsTheFuture() throws Exception {
    List<String> threads = new CopyOnWriteArrayList<>();
    Recorder sink = new Recorder() {
      @Override
      public UpdateResult onSnapshot(ReplicaSnapshot snapshot) {
        threads.add(Thread.currentThread().getName());
        return super.onSnapshot(snapshot);
      }
    };
    PrometheusPoller p = poller().build();
    ScrapeStatus status = p.scrapeAsync("r0", sink).get(30, TimeUnit.SECONDS);

    assertThat(status.health()).isEqualTo(ScrapeHealth.UP);
    assertThat(sink.snapshots).hasSize(1);
    assertThat(threads).singleElement().asString().startsWith("kvroute-prometheus-poller-");
    assertThatThrownBy(() -> p.scrapeAsync("nope", sink)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("replicaId: nope");

    p.close();
    ScrapeStatus afterClose = p.scrapeAsync("r0", sink).get(30, TimeUnit.SECONDS);
    assertThat(afterClose.scrapes()).as("a closed poller scrapes no more").isEqualTo(1);
    assertThat(sink.snapshots).hasSize(1);
  }

  @Test
  void httpErrorsAndEmptyBodiesFailTheScrapeAndUnhealthyMeansStarting() {
    Recorder sink = new Recorder();
    try (PrometheusPoller p = poller().build()) {
      client.answer("/metrics", 500, "oops");
      assertThat(p.scrapeNow("r0", sink).lastError().orElseThrow())
          .contains("GET http://127.0.0.1:8000/metrics: HTTP 500 (expected: 2xx)");
      client.answer("/metrics", 200, "<html>not metrics</html>\n");
      assertThat(p.scrapeNow("r0", sink).lastError().orElseThrow())
          .contains("no sample").contains("1 malformed lines");
      assertThat(sink.snapshots).isEmpty();

      client.answer("/metrics", 200, resource("vllm-metrics.txt"));
      client.answer("/health", 503, "");
      p.scrapeNow("r0", sink);
      assertThat(sink.snapshots.get(0).state()).isEqualTo(ReplicaState.STARTING);
      client.answer("/health", 404, "");
      ScrapeStatus noHealth = p.scrapeNow("r0", sink);
      assertThat(sink.snapshots.get(1).state()).isEqualTo(ReplicaState.READY);
      assertThat(noHealth.problems()).anyMatch(m -> m.contains("HTTP 404 (taken as no health endpoint"));
    }
  }

  @Test
  void malformedLinesAndAdapterListFailuresAreCountedNotFatal() {
    Recorder sink = new Recorder();
    try (PrometheusPoller p = poller().build()) {
      client.answer("/metrics", 200, resource("vllm-metrics.txt") + "vllm:broken{ 1\ngarbage line here\n");
      client.answer("/v1/models", 200, "not json");
      ScrapeStatus s = p.scrapeNow("r0", sink);
      assertThat(s.health()).isEqualTo(ScrapeHealth.UP);
      assertThat(s.malformedLines()).isEqualTo(2);
      assertThat(s.malformedLinesTotal()).isEqualTo(2);
      assertThat(s.problems()).anyMatch(m -> m.contains("/v1/models: not JSON"));
      assertThat(sink.snapshots.get(0).residentAdapters()).isEmpty();
      assertThat(sink.snapshots.get(0).waitingRequests()).hasValue(3);
    }
  }

  @Test
  void aThrowingSinkIsContainedAndCounted() {
    TelemetrySink throwing = new TelemetrySink() {
      @Override
      public UpdateResult onSnapshot(ReplicaSnapshot snapshot) {
        throw new IllegalStateException("sink down");
      }

      @Override
      public UpdateResult onKvEvent(KvEvent event) {
        throw new AssertionError();
      }
    };
    try (PrometheusPoller p = poller().build()) {
      ScrapeStatus s = p.scrapeNow("r0", throwing);
      assertThat(s.health()).isEqualTo(ScrapeHealth.UP);
      assertThat(s.sinkFailures()).isEqualTo(1);
      assertThat(s.problems()).contains("sink: IllegalStateException: sink down");
      assertThat(s.lastResult()).isEmpty();
    }
  }

  @Test
  void withoutProcessStartTimeTheEpochAdvancesWhenCountersGoDown() {
    Recorder sink = new Recorder();
    String withoutStart = resource("vllm-metrics.txt").replaceAll("(?m)^process_start_time_seconds.*$", "");
    client.answer("/metrics", 200, withoutStart);
    try (PrometheusPoller p = poller().build()) {
      p.scrapeNow("r0", sink);
      p.scrapeNow("r0", sink);
      client.answer("/metrics", 200, withoutStart.replace("} 102400.0", "} 5.0"));
      p.scrapeNow("r0", sink);
      assertThat(sink.snapshots).extracting(ReplicaSnapshot::epoch).containsExactly(0L, 0L, 1L);
    }
  }

  @Test
  void feedsARouterWhichKnowsTheReplicaAndItsLoad() {
    try (Router router = Router.newBuilder().policy(new FirstCandidatePolicy()).ticker(ticker).build();
        PrometheusPoller p = poller().build()) {
      ScrapeStatus s = p.scrapeNow("r0", router);
      assertThat(s.lastResult()).contains(UpdateResult.APPLIED);
      ReplicaStatus r = router.replicas().get(0);
      assertThat(r.replicaId()).isEqualTo("r0");
      assertThat(r.epoch()).isEqualTo(1_761_816_192_130_000_000L);
      assertThat(r.state()).contains(ReplicaState.READY);
    }
  }

  @Test
  void subscribingSchedulesEveryReplicaUntilTheHandleIsClosed() throws Exception {
    CountDownLatch r0 = new CountDownLatch(2);
    CountDownLatch r1 = new CountDownLatch(2);
    Recorder sink = new Recorder() {
      @Override
      public UpdateResult onSnapshot(ReplicaSnapshot snapshot) {
        UpdateResult result = super.onSnapshot(snapshot);
        (snapshot.replicaId().equals("r0") ? r0 : r1).countDown();
        return result;
      }
    };
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try {
      PrometheusPoller p = poller()
          .replica(ReplicaTarget.of("r1", "qwen", URI.create("http://127.0.0.1:8001"), EngineMetrics.VLLM))
          .scheduler(scheduler)
          .interval(Duration.ofMillis(5))
          .build();
      AutoCloseable handle = p.subscribe(sink);
      assertThatThrownBy(() -> p.subscribe(sink)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("already subscribed");
      assertThat(r0.await(30, TimeUnit.SECONDS)).as("r0 scraped on schedule").isTrue();
      assertThat(r1.await(30, TimeUnit.SECONDS)).as("r1 scraped on schedule").isTrue();
      handle.close();
      p.close();
      assertThat(scheduler.isShutdown()).as("an injected scheduler is the caller's").isFalse();
      assertThatThrownBy(() -> p.subscribe(sink)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("closed");
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Test
  void badConfigurationIsRejectedWithItsName() {
    assertThatThrownBy(() -> PrometheusPoller.builder().build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("replicas: none");
    assertThatThrownBy(() -> PrometheusPoller.builder().interval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("interval: PT0S (expected: > 0)");
    assertThatThrownBy(() -> PrometheusPoller.builder().reportStoppedAfter(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reportStoppedAfter: -1");
    assertThatThrownBy(() -> poller().replica(ReplicaTarget.of("r0", "m", BASE, EngineMetrics.SGLANG)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replicaId: r0");
    assertThatThrownBy(() -> ReplicaTarget.of("r0", "m", URI.create("localhost"), EngineMetrics.VLLM))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("baseUri: localhost");
    try (PrometheusPoller p = poller().build()) {
      assertThatThrownBy(() -> p.status("nope")).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("replicaId: nope (expected: one of [r0])");
      assertThat(p.status("r0").health()).isEqualTo(ScrapeHealth.UNKNOWN);
    }
  }

  @Test
  void sglangTargetsSkipTheModelList() {
    assertThat(ReplicaTarget.of("s0", "m", BASE, EngineMetrics.SGLANG).modelsPath()).isNull();
    assertThat(ReplicaTarget.of("v0", "m", BASE, EngineMetrics.VLLM).modelsPath()).isEqualTo("/v1/models");
    assertThat(ReplicaTarget.of("v0", "m", BASE, EngineMetrics.VLLM).withHealthPath(null).healthPath()).isNull();
  }
}
