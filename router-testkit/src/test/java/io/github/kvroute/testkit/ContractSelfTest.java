package io.github.kvroute.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** The contract catches broken policies (it would be worthless if it passed everything). */
class ContractSelfTest {
  private static RoutingPolicyContract contractFor(Function<RoutingContext, RoutingDecision> rule) {
    return new RoutingPolicyContract() {
      @Override
      protected String policyName() {
        return "broken";
      }

      @Override
      protected RoutingPolicy newPolicy(PolicyEnvironment environment) {
        return new RoutingPolicy() {
          @Override
          public String name() {
            return "broken";
          }

          @Override
          public RoutingDecision route(RoutingContext context) {
            return rule.apply(context);
          }
        };
      }
    };
  }

  /** Four READY replicas and 30 routes of one model. */
  private static RouterScript workload() {
    List<ReplicaSnapshot> fleet = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      fleet.add(ReplicaSnapshot.newBuilder().replicaId("replica-" + i)
          .model(KvrouteArbitraries.MODEL).build());
    }
    List<RouterScript.Action> actions = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      actions.add(new RouterScript.Route(Request.newBuilder().id("r" + i).model(KvrouteArbitraries.MODEL)
          .prompt(PromptKey.ofTokens(KvrouteArbitraries.systemPrompt(i % 3, 48),
              CacheNamespace.of(KvrouteArbitraries.MODEL))).build()));
    }
    return new RouterScript(fleet, actions);
  }

  @Test
  void throwingOnAnEmptyFleetIsCaught() {
    RoutingPolicyContract c = contractFor(ctx -> routed(ctx.candidates().get(0)));
    assertThatThrownBy(c::emptyFleetIsANoCandidatesRejection)
        .isInstanceOf(AssertionFailedError.class).hasMessageContaining("contained plugin failures");
  }

  @Test
  void routingOutsideTheCandidatesIsCaught() {
    RoutingPolicyContract c = contractFor(ctx -> ctx.candidates().isEmpty() ? ctx.noCandidates()
        : routed(CandidateView.newBuilder().replicaId("ghost").build()));
    assertThatThrownBy(() -> c.neverRoutesToAnIneligibleReplica(workload(), 1))
        .isInstanceOf(AssertionFailedError.class);
  }

  @Test
  void unseededRandomnessIsCaught() {
    RoutingPolicyContract c = contractFor(ctx -> ctx.candidates().isEmpty() ? ctx.noCandidates()
        : routed(ctx.candidates().get(ThreadLocalRandom.current().nextInt(ctx.candidates().size()))));
    assertThatThrownBy(() -> c.deterministicUnderASeed(workload(), 1))
        .isInstanceOf(AssertionFailedError.class).hasMessageContaining("decided differently");
  }

  private static RoutingDecision routed(CandidateView v) {
    return RoutingDecision.routed(v, CostBreakdown.empty());
  }
}
