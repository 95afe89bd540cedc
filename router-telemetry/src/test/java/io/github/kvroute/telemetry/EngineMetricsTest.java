package io.github.kvroute.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.LatencyTotals;
import io.github.kvroute.api.ReplicaSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The snapshot fields each engine's metrics give: exactly those of the simulator's {@code vllm} and
 * {@code sglang} telemetry profiles (router-sim TelemetryProfile), and nothing else.
 */
class EngineMetricsTest {

  static String resource(String name) {
    try (InputStream in = EngineMetricsTest.class.getResourceAsStream("/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ReplicaSnapshot map(EngineMetrics engine, String text, EngineMetrics.FieldProblems p) {
    ReplicaSnapshot.Builder b = ReplicaSnapshot.newBuilder().replicaId("r0").model("m");
    engine.apply(PrometheusText.parse(text), b, p);
    return b.build();
  }

  @Test
  void vllmMetricsGiveTheVllmProfileFields() {
    EngineMetrics.FieldProblems p = new EngineMetrics.FieldProblems();
    Exposition e = PrometheusText.parse(resource("vllm-metrics.txt"));
    assertThat(e.malformedLines()).isZero();
    ReplicaSnapshot s = map(EngineMetrics.VLLM, resource("vllm-metrics.txt"), p);

    assertThat(p.list()).isEmpty();
    assertThat(s.waitingRequests()).hasValue(3);
    assertThat(s.runningRequests()).hasValue(12);
    // 0.4125 x 81469 = 33605.96 -> 33606 used blocks of 81469, 16 tokens each
    assertThat(s.kvBlocksTotal()).hasValue(81469);
    assertThat(s.kvBlocksUsed()).hasValue(33606);
    assertThat(s.kvBlockSizeTokens()).hasValue(16);
    assertThat(s.promptTokensTotal()).hasValue(102400);
    assertThat(s.generationTokensTotal()).hasValue(25600);
    assertThat(s.prefixCacheQueriesTotal()).hasValue(102400);
    assertThat(s.prefixCacheHitsTotal()).hasValue(61440);
    assertThat(s.preemptionsTotal()).hasValue(3);
    assertThat(s.timeToFirstToken()).contains(new LatencyTotals(13.5, 104));
    assertThat(s.queueTime()).contains(new LatencyTotals(4.0, 100));
    assertThat(s.prefillTime()).contains(new LatencyTotals(7.25, 100));
    // not in the vllm profile: unknown stays absent
    assertThat(s.queuedPrefillTokens()).isEmpty();
    assertThat(s.outstandingDecodeTokens()).isEmpty();
    assertThat(s.prefillTokensPerSecond()).isEmpty();
    assertThat(s.decodeStepMillis()).isEmpty();
    assertThat(s.requestsReceivedTotal()).isEmpty();
    assertThat(s.cacheHitRate()).isEmpty();
    assertThat(s.generationTokensPerSecond()).isEmpty();
    // 1.76181619213e9 s in nanoseconds
    assertThat(EngineMetrics.epochNanos(e)).hasValue(1_761_816_192_130_000_000L);
  }

  @Test
  void sglangDocumentationExampleGivesTheSglangProfileFields() {
    EngineMetrics.FieldProblems p = new EngineMetrics.FieldProblems();
    String text = resource("sglang-docs-metrics.txt");
    assertThat(PrometheusText.parse(text).malformedLines()).isZero();
    ReplicaSnapshot s = map(EngineMetrics.SGLANG, text, p);

    assertThat(s.runningRequests()).hasValue(162);
    assertThat(s.waitingRequests()).hasValue(2826);
    assertThat(s.promptTokensTotal()).hasValue(8_128_902);
    assertThat(s.generationTokensTotal()).hasValue(7_557_572);
    assertThat(s.cacheHitRate()).hasValue(0.007507552643049313);
    assertThat(s.generationTokensPerSecond()).hasValue(86.50814177726902);
    assertThat(s.timeToFirstToken()).contains(new LatencyTotals(2.3518979474117756e+06, 11008));
    // the documentation's example has no sglang:max_total_num_tokens: the pool size is unknown
    assertThat(s.kvBlocksTotal()).isEmpty();
    assertThat(s.kvBlockSizeTokens()).isEmpty();
    assertThat(p.list()).containsExactly("sglang:max_total_num_tokens: absent");
    // not in the sglang profile
    assertThat(s.prefixCacheQueriesTotal()).isEmpty();
    assertThat(s.preemptionsTotal()).isEmpty();
    assertThat(s.queueTime()).isEmpty();
    assertThat(s.prefillTime()).isEmpty();
  }

  @Test
  void sglangPoolIsPagedByTokenAndFallsBackToTokenUsage() {
    EngineMetrics.FieldProblems p = new EngineMetrics.FieldProblems();
    ReplicaSnapshot used = map(EngineMetrics.SGLANG, """
        sglang:num_used_tokens{tp_rank="0"} 27876.0
        sglang:max_total_num_tokens{tp_rank="0"} 144870.0
        """, p);
    assertThat(used.kvBlocksUsed()).hasValue(27876);
    assertThat(used.kvBlocksTotal()).hasValue(144870);
    assertThat(used.kvBlockSizeTokens()).hasValue(1);

    ReplicaSnapshot usage = map(EngineMetrics.SGLANG, """
        sglang:token_usage 0.25
        sglang:max_total_num_tokens 1000.0
        """, new EngineMetrics.FieldProblems());
    assertThat(usage.kvBlocksUsed()).hasValue(250);
    assertThat(usage.kvBlocksTotal()).hasValue(1000);
  }

  @Test
  void dataParallelEnginesAreSummedAndTheirUsageAveraged() {
    ReplicaSnapshot s = map(EngineMetrics.VLLM, """
        vllm:num_requests_running{engine="0",model_name="m"} 12.0
        vllm:num_requests_running{engine="1",model_name="m"} 9.0
        vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
        vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.5
        vllm:cache_config_info{block_size="16",num_gpu_blocks="1000"} 1.0
        """, new EngineMetrics.FieldProblems());
    assertThat(s.runningRequests()).hasValue(21);
    assertThat(s.kvBlocksUsed()).hasValue(375);
  }

  @Test
  void badValuesLeaveTheirFieldAbsentAndAreNamed() {
    EngineMetrics.FieldProblems p = new EngineMetrics.FieldProblems();
    ReplicaSnapshot s = map(EngineMetrics.VLLM, """
        vllm:num_requests_waiting NaN
        vllm:num_requests_running -1
        vllm:kv_cache_usage_perc 1.5
        vllm:cache_config_info{block_size="sixteen",num_gpu_blocks="None"} 1.0
        vllm:prefix_cache_queries_total 10
        vllm:prefix_cache_hits_total 20
        vllm:gpu_cache_usage_perc 0.5
        """, p);
    assertThat(s.waitingRequests()).isEmpty();
    assertThat(s.runningRequests()).isEmpty();
    assertThat(s.kvBlocksTotal()).isEmpty();
    assertThat(s.kvBlockSizeTokens()).isEmpty();
    assertThat(s.prefixCacheHitsTotal()).isEmpty();
    assertThat(p.list()).contains(
        "vllm:num_requests_waiting: NaN (expected: a finite value >= 0)",
        "vllm:num_requests_running: -1.0 (expected: a finite value >= 0)",
        "vllm:kv_cache_usage_perc: 1.5 (expected: a fraction in [0, 1])",
        "vllm:cache_config_info{num_gpu_blocks}: absent",
        "vllm:cache_config_info{block_size}: sixteen (expected: an integer)");
    assertThat(p.list()).anyMatch(m -> m.startsWith("vllm:prefix_cache_hits_total: prefixCacheHitsTotal: 20"));
  }

  @Test
  void olderVllmNamesAreRead() {
    ReplicaSnapshot s = map(EngineMetrics.VLLM, """
        vllm:gpu_cache_usage_perc{model_name="m"} 0.5
        vllm:cache_config_info{block_size="16",num_gpu_blocks="100"} 1.0
        vllm:gpu_prefix_cache_queries_total{model_name="m"} 10
        vllm:gpu_prefix_cache_hits_total{model_name="m"} 4
        """, new EngineMetrics.FieldProblems());
    assertThat(s.kvBlocksUsed()).hasValue(50);
    assertThat(s.prefixCacheQueriesTotal()).hasValue(10);
    assertThat(s.prefixCacheHitsTotal()).hasValue(4);
  }

  @Test
  void epochIsEmptyWithoutAPlausibleStartTime() {
    assertThat(EngineMetrics.epochNanos(PrometheusText.parse("x 1"))).isEmpty();
    assertThat(EngineMetrics.epochNanos(PrometheusText.parse("process_start_time_seconds -5"))).isEmpty();
    assertThat(EngineMetrics.epochNanos(PrometheusText.parse("process_start_time_seconds 1e12"))).isEmpty();
  }
}
