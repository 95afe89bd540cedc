package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Separate prefill and decode policies, and the baselines' PD behaviour (SGLang's PD router). */
class PdSplitPolicyTest {
  private final Request request = TestRequests.request(2_048, 3);

  /** p-warm holds the whole prompt; d-busy has 5 in flight, d-idle none. */
  private final List<CandidateView> fleet = List.of(
      CandidateView.newBuilder().replicaId("p-cold").role(ReplicaRole.PREFILL).build(),
      CandidateView.newBuilder().replicaId("p-warm").role(ReplicaRole.PREFILL)
          .matched(128, 2_048).build(),
      CandidateView.newBuilder().replicaId("d-busy").role(ReplicaRole.DECODE)
          .inFlight(5, 5_000).build(),
      CandidateView.newBuilder().replicaId("d-idle").role(ReplicaRole.DECODE).build());

  @Test
  void cacheAwarePrefill_powerOfTwoDecode_byDefault() {
    RoutingContext ctx = FixedRoutingContext.of(request, fleet, 7);

    RoutingDecision d = Policies.create("pd-split").route(ctx);

    assertThat(d.prefillReplicaId()).contains("p-warm"); // full match above cache_threshold 0.3
    assertThat(d.replicaId()).isEqualTo("d-idle"); // the less loaded of the only two
  }

  @Test
  void cacheAwareAloneRoutesAPdFleetInsteadOfFindingNoCandidates() {
    RoutingDecision d = Policies.create("cache-aware").route(FixedRoutingContext.of(request, fleet, 7));

    assertThat(d.isRouted()).isTrue();
    assertThat(d.prefillReplicaId()).contains("p-warm");
    assertThat(d.replicaId()).isEqualTo("d-idle"); // no match on decode: least loaded
  }

  @Test
  void eachSideIsConfigurable_andPdSplitCannotNestItself() {
    PolicyEnvironment env = PolicyEnvironment.of(() -> 0L, RandomSource.seeded(1));
    PdSplitPolicyProvider provider = new PdSplitPolicyProvider();

    assertThat(provider.newPolicy(Map.of("prefill", "round-robin", "decode", "least-request"), env)
        .isOk()).isTrue();
    assertThat(provider.newPolicy(Map.of("decode", "pd-split"), env).error())
        .startsWith("decode: pd-split (expected: one of [");
    assertThat(provider.newPolicy(Map.of("prefill", "nope"), env).error())
        .startsWith("prefill: nope (expected: one of [");
    assertThat(provider.newPolicy(Map.of("prefill.cache_threshold", "0.5"), env).isOk()).isTrue();
    assertThat(provider.newPolicy(Map.of("decode.cache_threshold", "0.5"), env).error())
        .isEqualTo("decode.cache_threshold: unknown option (expected: one of [])");
  }

  @Test
  void onAFleetOfWholeRequestReplicasThePrefillPolicyDecidesAlone() {
    List<CandidateView> mixed = List.of(
        CandidateView.newBuilder().replicaId("a").build(),
        CandidateView.newBuilder().replicaId("b").matched(128, 2_048).build());

    RoutingDecision d = Policies.create("pd-split").route(FixedRoutingContext.of(request, mixed, 7));

    assertThat(d.replicaId()).isEqualTo("b");
    assertThat(d.prefillReplicaId()).isEmpty();
  }

  @Test
  void roundRobinTakesTurnsInEachPoolSeparately() {
    var policy = Policies.create("round-robin");
    StringBuilder pairs = new StringBuilder();
    for (int i = 0; i < 4; i++) {
      RoutingDecision d = policy.route(FixedRoutingContext.of(request, fleet, 7));
      pairs.append(d.prefillReplicaId().orElseThrow()).append('>').append(d.replicaId()).append(' ');
    }

    assertThat(pairs.toString().trim())
        .isEqualTo("p-cold>d-busy p-warm>d-idle p-cold>d-busy p-warm>d-idle");
  }
}
