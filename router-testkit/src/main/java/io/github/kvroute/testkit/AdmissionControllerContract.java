package io.github.kvroute.testkit;

import io.github.kvroute.api.ManualTicker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.Router;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The contract every {@link AdmissionController} must honour. Extend it and supply the controller:
 *
 * <pre>{@code
 * class MyAdmissionContractTest extends AdmissionControllerContract {
 *   @Override protected AdmissionController admissionController() { return new MyAdmission(); }
 * }
 * }</pre>
 * The checks, on generated fleets, requests and proposals:
 * <ul>
 *   <li>the answer is the proposed decision itself, or a rejection with a reason, a detail and a
 *       non-negative retry-after when present;
 *   <li>it never throws, including for requests with an empty or already spent TTFT budget and for
 *       requests with no budget at all;
 *   <li>it is deterministic: the same inputs give the same answer;
 *   <li>plugged into a real {@link Router}, it never trips the router's containment.
 * </ul>
 *
 * <p>Not thread-safe (one instance per test).
 */
public abstract class AdmissionControllerContract {

  /** {@return the controller under test} */
  protected abstract AdmissionController admissionController();

  /**
   * One generated admission question: a request (with an empty, a spent, or no TTFT budget), whole
   * request candidates, and which of them the policy proposed.
   */
  public record Case(Request request, List<CandidateView> views, int proposed, long seed) {
    RoutingContext context() {
      return FixedRoutingContext.of(request, views, seed);
    }

    RoutingDecision proposal(RoutingContext context) {
      CandidateView chosen = context.candidates().get(proposed % context.candidates().size());
      return RoutingDecision.routed(chosen, context.estimate(chosen));
    }
  }

  @Provide
  Arbitrary<Case> cases() {
    Arbitrary<Request> requests = KvrouteArbitraries.requests(KvrouteArbitraries.MODEL)
        .flatMap(r -> Arbitraries.of(0, 1, 2).map(kind -> switch (kind) {
          case 0 -> r.toBuilder().ttftBudget(Duration.ZERO).build(); // empty budget
          case 1 -> r; // as generated: with or without a budget
          default -> r.toBuilder().ttftBudget(Duration.ofMillis(100))
              .upstreamElapsed(Duration.ofMillis(500)).build(); // already spent upstream
        }));
    Arbitrary<List<CandidateView>> views = KvrouteArbitraries.fleets(1, 6).flatMap(fleet -> {
      List<Arbitrary<CandidateView>> each = new ArrayList<>();
      for (ReplicaSnapshot s : fleet) {
        each.add(view(s));
      }
      return Combinators.combine(each).as(List::copyOf);
    });
    return Combinators.combine(requests, views, Arbitraries.integers().between(0, 5),
        Arbitraries.longs()).as(Case::new);
  }

  private static Arbitrary<CandidateView> view(ReplicaSnapshot s) {
    return Combinators.combine(Arbitraries.doubles().between(0, 5_000),
        Arbitraries.integers().between(0, 64), Arbitraries.integers().between(0, 40))
        .as((queue, matchedBlocks, inFlight) -> CandidateView.newBuilder()
            .replicaId(s.replicaId()).epoch(s.epoch()).snapshot(s)
            .estimatedQueueMillis(queue).matched(matchedBlocks, matchedBlocks * 16)
            .inFlight(inFlight, inFlight * 300L).build());
  }

  /** Also: never throws, whatever the budget (an exception fails the property). */
  @Property(tries = 200)
  void returnsTheProposalOrARejectionWithAReason(@ForAll("cases") Case c) {
    RoutingContext context = c.context();
    RoutingDecision proposed = c.proposal(context);
    RoutingDecision answer = admissionController().admit(context, proposed);
    assertNotNull(answer, "admit returned null");
    if (answer.isRouted()) {
      assertSame(proposed, answer, "a routed answer must be the proposal itself");
    } else {
      assertNotNull(answer.reason());
      assertFalse(answer.detail().isBlank(), "a rejection needs a detail");
      answer.retryAfter().ifPresent(d -> assertFalse(d.isNegative(), "negative retry-after"));
    }
  }

  @Property(tries = 100)
  void deterministic(@ForAll("cases") Case c) {
    RoutingContext first = c.context();
    RoutingContext second = c.context();
    assertEquals(admissionController().admit(first, c.proposal(first)).toString(),
        admissionController().admit(second, c.proposal(second)).toString());
  }

  @Property(tries = 20)
  void containedInARealRouter(@ForAll("routerScripts") RouterScript workload, @ForAll long seed) {
    ManualTicker ticker = new ManualTicker();
    RoutingPolicyContract.Failures failures = new RoutingPolicyContract.Failures();
    try (Router router = Router.newBuilder().policy(new LeastCost()).admission(admissionController())
        .ticker(ticker).seed(seed).indexBudgetBytes(1L << 20).listener(failures).build()) {
      workload.playOn(router, ticker);
      failures.assertNone(router);
    }
  }

  @Provide
  Arbitrary<RouterScript> routerScripts() {
    return KvrouteArbitraries.routerScripts();
  }

  /** The least estimated cost: a plain policy for exercising admission through a router. */
  private static final class LeastCost implements RoutingPolicy {
    @Override
    public String name() {
      return "contract-least-cost";
    }

    @Override
    public RoutingDecision route(RoutingContext context) {
      CandidateView best = null;
      CostBreakdown bestCost = null;
      for (CandidateView c : context.candidates()) {
        CostBreakdown cost = context.estimate(c);
        if (bestCost == null || cost.totalMillis() < bestCost.totalMillis()) {
          best = c;
          bestCost = cost;
        }
      }
      return best == null ? context.noCandidates() : RoutingDecision.routed(best, bestCost);
    }
  }
}
