package io.github.kvroute.core;

import io.github.kvroute.api.ManualTicker;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static io.github.kvroute.core.TestData.storedPrefix;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.BreakerState;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaState;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Router#replicas()}: what the router knows per replica, as hosts' admin pages show it. */
class ReplicaStatusTest {
  private final ManualTicker ticker = new ManualTicker();
  private final Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
      .seed(2).build();

  @Test
  void reportsEachReplicaSortedById_withItsBooksAgeAndIndexMode() {
    router.onSnapshot(queued("b", 0));
    router.onSnapshot(ready("a").state(ReplicaState.DRAINING).build());
    PromptKey p = prompt(160, 1);
    router.onKvEvent(storedPrefix("b", 0, p, 4));
    ticker.advanceMillis(250);
    router.route(request("q", p).maxOutputTokens(40).build());

    List<ReplicaStatus> all = router.replicas();

    assertThat(all).extracting(ReplicaStatus::replicaId).containsExactly("a", "b");
    ReplicaStatus a = all.get(0);
    assertThat(a.state()).contains(ReplicaState.DRAINING);
    assertThat(a.inFlightRequests()).isZero();
    assertThat(a.exactIndex()).isFalse();
    ReplicaStatus b = all.get(1);
    assertThat(b.state()).contains(ReplicaState.READY);
    assertThat(b.breaker()).isEqualTo(BreakerState.CLOSED);
    assertThat(b.reportAgeMillis()).isEqualTo(250.0);
    assertThat(b.inFlightRequests()).isEqualTo(1);
    assertThat(b.inFlightTokens()).isEqualTo(160 + 40);
    assertThat(b.exactIndex()).isTrue();
    assertThat(b.indexEntries()).as("exact mode: what the events said, and the open attempt's"
        + " prefix (speculative)").isEqualTo(160 / 16);
    assertThat(b.estimatedQueueMillis()).isPositive();
  }

  @Test
  void anEmptyRouterKnowsNoReplicas() {
    assertThat(router.replicas()).isEmpty();
  }
}
