package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.core.Router;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The worked placement of docs/cost-model.md through the real router: R0 holds all 4,000 reusable
 * tokens behind a 300 ms queue, R1 is idle with nothing, R2 holds 2,000 behind 100 ms, at 0.06 ms
 * per missing token. Cache-only routing chooses R0; the hybrid cost chooses R2 (300 / 240 /
 * 220 ms).
 */
class PartialLocalityPlacementTest {
  private static final String MODEL = "llama-3-70b";

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({"cache-only, R0", "hybrid-cost, R2", "kv-overlap, R0"})
  void placement(String policy, String expected) {
    ManualTicker ticker = new ManualTicker();
    CostModel model = CostModel.newBuilder().prefillOverheadMillis(0).prefillMillisPerToken(0.06)
        .build();
    PromptKey prompt = PromptKey.ofTokens(TestRequests.tokens(4_000, 7), CacheNamespace.of(MODEL));
    try (Router router = Router.newBuilder().policy(policy).costModel(model).ticker(ticker).seed(7)
        .build()) {
      String[] ids = {"R0", "R1", "R2"};
      double[] queues = {300, 0, 100};
      for (int i = 0; i < 3; i++) {
        router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId(ids[i]).model(MODEL)
            .observedAtNanos(ticker.read()).estimatedQueueDelayMillis(queues[i]).build());
      }
      router.onKvEvent(KvEvent.stored("R0", 0, prompt.blockHashes()));
      router.onKvEvent(KvEvent.stored("R2", 0,
          Arrays.copyOf(prompt.blockHashes(), prompt.blockCount() / 2)));
      RoutingDecision d = router.route(
          Request.newBuilder().id("req-1").model(MODEL).prompt(prompt).maxOutputTokens(256).build());
      assertThat(d.replicaId()).isEqualTo(expected);
      assertThat(router.stats().pluginFailures()).isZero();
    }
  }
}
