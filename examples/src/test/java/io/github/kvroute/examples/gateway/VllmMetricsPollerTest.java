package io.github.kvroute.examples.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.LatencyTotals;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.TelemetrySink;
import io.github.kvroute.api.UpdateResult;
import io.github.kvroute.examples.emulator.EmulatedReplica;
import io.github.kvroute.examples.emulator.EngineModel;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class VllmMetricsPollerTest {
  /** vLLM's exposition as its V1 engine writes it, with two lines broken on purpose. */
  private static final String METRICS = """
      # HELP vllm:num_requests_running Number of requests in model execution batches.
      # TYPE vllm:num_requests_running gauge
      vllm:num_requests_running{engine="0",model_name="m"} 3.0
      vllm:num_requests_waiting{engine="0",model_name="m"} 2.0
      vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
      vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0
      vllm:prefix_cache_hits_total{engine="0",model_name="m"} 640.0
      vllm:prompt_tokens_total{engine="0",model_name="m"} 1200.0
      vllm:generation_tokens_total{engine="0",model_name="m"} 96.0
      vllm:time_to_first_token_seconds_sum{engine="0",model_name="m"} 0.5
      vllm:time_to_first_token_seconds_count{engine="0",model_name="m"} 4.0
      vllm:request_prefill_time_seconds_sum{engine="0",model_name="m"} 0.25
      vllm:request_prefill_time_seconds_count{engine="0",model_name="m"} 4.0
      vllm:num_preemptions_total{engine="0",model_name="m"} 1.0
      vllm:cache_config_info{block_size="16",cache_dtype="auto",num_gpu_blocks="8192"} 1.0
      vllm:generation_tokens_total{engine="0" 12.0
      vllm:num_requests_waiting{engine="1",model_name="m"} not-a-number
      process_start_time_seconds 1.7642e+09
      """;

  @Test
  void vllmMetricsBecomeASnapshotAndBrokenLinesCostOnlyThemselves() {
    ReplicaSnapshot s = VllmMetricsPoller.snapshot("r0", "m", PrometheusText.parse(METRICS));

    assertThat(s.replicaId()).isEqualTo("r0");
    assertThat(s.state()).isEqualTo(ReplicaState.READY);
    assertThat(s.epoch()).isEqualTo(1_764_200_000_000L);
    assertThat(s.runningRequests()).hasValue(3);
    assertThat(s.waitingRequests()).hasValue(2);
    assertThat(s.kvBlocksTotal()).hasValue(8192);
    assertThat(s.kvBlocksUsed()).hasValue(2048);
    assertThat(s.kvBlockSizeTokens()).hasValue(16);
    assertThat(s.prefixCacheQueriesTotal()).hasValue(1000);
    assertThat(s.prefixCacheHitsTotal()).hasValue(640);
    assertThat(s.promptTokensTotal()).hasValue(1200);
    assertThat(s.generationTokensTotal()).hasValue(96);
    assertThat(s.timeToFirstToken()).contains(new LatencyTotals(0.5, 4));
    assertThat(s.prefillTime()).contains(new LatencyTotals(0.25, 4));
    assertThat(s.preemptionsTotal()).hasValue(1);
    assertThat(s.queueTime()).isEmpty(); // not in the text: absent, never zero
  }

  @Test
  void aReplicaThatStopsAnsweringIsStoppedAfterThreeFailedScrapesNotOne() {
    EmulatedReplica replica = EmulatedReplica.start("poller-partition", "m", EngineModel.scaledDown());
    List<ReplicaSnapshot> seen = new CopyOnWriteArrayList<>();
    try (VllmMetricsPoller poller = new VllmMetricsPoller(recorder(seen), Map.of("r0", replica.uri()),
        "m", Duration.ofHours(1))) {
      poller.start();
      replica.partition();
      poller.refresh("r0").join();
      poller.refresh("r0").join();
      assertThat(seen).hasSize(1); // two timeouts: maybe a slow scrape, the replica stays

      poller.refresh("r0").join();

      assertThat(seen).hasSize(2);
      assertThat(seen.get(1).state()).isEqualTo(ReplicaState.STOPPED);
    } finally {
      replica.kill();
    }
  }

  private static TelemetrySink recorder(List<ReplicaSnapshot> seen) {
    return new TelemetrySink() {
      @Override
      public UpdateResult onSnapshot(ReplicaSnapshot snapshot) {
        seen.add(snapshot);
        return UpdateResult.APPLIED;
      }

      @Override
      public UpdateResult onKvEvent(KvEvent event) {
        return UpdateResult.APPLIED;
      }
    };
  }

  @Test
  void aScrapeOfAnEmulatedReplicaReportsItAndARefusedOneStopsIt() {
    EmulatedReplica replica = EmulatedReplica.start("poller-test", "m", EngineModel.scaledDown());
    List<ReplicaSnapshot> seen = new CopyOnWriteArrayList<>();
    TelemetrySink sink = recorder(seen);
    URI uri = replica.uri();
    try (VllmMetricsPoller poller =
        new VllmMetricsPoller(sink, Map.of("r0", uri), "m", Duration.ofHours(1))) {
      poller.start();
      assertThat(seen).hasSize(1);
      assertThat(seen.get(0).state()).isEqualTo(ReplicaState.READY);
      assertThat(seen.get(0).kvBlocksTotal()).hasValue(8192);

      replica.kill();
      poller.refresh("r0").join();
      poller.refresh("unknown").join();

      assertThat(seen).hasSize(2);
      assertThat(seen.get(1).state()).isEqualTo(ReplicaState.STOPPED);
      assertThat(seen.get(1).epoch()).isEqualTo(seen.get(0).epoch());
    }
  }
}
