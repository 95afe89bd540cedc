package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import org.junit.jupiter.api.Test;

/**
 * A view keeps a plain request's eligibility while the replica's report stays the same
 * ({@code MutableView.eligibleModel}); whatever ends it must end the kept answer: a removal, a new
 * report that is not READY or serves another model, or a request that names a version.
 */
class KeptEligibilityTest {
  private final ManualTicker ticker = new ManualTicker();
  private final Router router =
      Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker).seed(1).build();
  private int n;

  private RoutingDecision route() {
    return router.route(TestData.request("q" + ++n, TestData.prompt(64, 1)).build());
  }

  @Test
  void aRemovedReplicaIsNotKeptEligible() {
    router.onSnapshot(TestData.queued("a", 0));
    router.onSnapshot(TestData.queued("b", 50));
    assertThat(route().replicaId()).isEqualTo("a");
    assertThat(route().replicaId()).as("kept on the same report").isEqualTo("a");
    router.removeReplica("a");
    assertThat(route().replicaId()).isEqualTo("b");
  }

  @Test
  void aNewReportThatIsNotReadyOrServesAnotherModelEndsIt() {
    router.onSnapshot(TestData.queued("a", 0));
    router.onSnapshot(TestData.queued("b", 50));
    assertThat(route().replicaId()).isEqualTo("a");
    ticker.advanceMillis(1);
    router.onSnapshot(TestData.ready("a").state(ReplicaState.DRAINING).build());
    assertThat(route().replicaId()).isEqualTo("b");
    ticker.advanceMillis(1);
    router.onSnapshot(TestData.queued("a", 0));
    assertThat(route().replicaId()).as("READY again").isEqualTo("a");
    ticker.advanceMillis(1);
    router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("a").model("another-model").build());
    assertThat(route().replicaId()).isEqualTo("b");
  }

  @Test
  void aRequestNamingAVersionIsCheckedAgainstTheReport() {
    router.onSnapshot(TestData.ready("a").modelVersion("v1").build());
    assertThat(route().replicaId()).isEqualTo("a");
    Request v2 = Request.newBuilder().id("v2").model(TestData.MODEL).modelVersion("v2")
        .prompt(PromptKey.ofTokens(TestData.tokens(64, 1),
            CacheNamespace.of(TestData.MODEL, "v2", null)))
        .build();
    assertThat(router.route(v2).isRouted()).as("a version the replica does not serve").isFalse();
    assertThat(route().replicaId()).isEqualTo("a");
  }
}
