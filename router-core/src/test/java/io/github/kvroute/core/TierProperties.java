package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Priority;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The interactive tier is never shed while a lower tier is admitted: for any fleet backlog, limit,
 * reserve and history of tenants, if a lower-tier request of a tenant is admitted, an interactive
 * request of the same tenant in the same state is admitted too.
 */
class TierProperties {
  @Property(tries = 300)
  void interactiveIsNeverShedWhileALowerTierIsAdmitted(
      @ForAll @DoubleRange(min = 0, max = 5_000) double backlog,
      @ForAll @IntRange(min = 1, max = 4_000) int limitMillis,
      @ForAll @DoubleRange(min = 0, max = 0.9) double reserve,
      @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 3) Integer> history,
      @ForAll @IntRange(min = 0, max = 3) int tenant) {
    // two controllers with the same history: the state each decision sees is the same
    AdmissionController a = controller(limitMillis, reserve);
    AdmissionController b = controller(limitMillis, reserve);
    long t = 0;
    for (int h : history) {
      t += 20_000_000L;
      for (AdmissionController c : List.of(a, b)) {
        admit(c, request(Priority.STANDARD, "t" + h), backlog * 0.6, t);
      }
    }
    t += 1_000_000L;
    boolean interactive =
        admit(a, request(Priority.INTERACTIVE, "t" + tenant), backlog, t).isRouted();
    for (Priority lower : List.of(Priority.STANDARD, Priority.BATCH)) {
      AdmissionController fresh = controller(limitMillis, reserve);
      long u = 0;
      for (int h : history) {
        u += 20_000_000L;
        admit(fresh, request(Priority.STANDARD, "t" + h), backlog * 0.6, u);
      }
      boolean lowerAdmitted =
          admit(fresh, request(lower, "t" + tenant), backlog, u + 1_000_000L).isRouted();
      if (lowerAdmitted) {
        assertThat(interactive).as("%s admitted but INTERACTIVE shed", lower).isTrue();
      }
    }
  }

  private static AdmissionController controller(int limitMillis, double reserve) {
    return Admission.newBuilder().queueLimit(Priority.BATCH, null)
        .fleetBacklogLimit(Duration.ofMillis(limitMillis)).interactiveReserve(reserve)
        .tenantFairness(Map.of()).build();
  }

  private static Request request(Priority p, String tenant) {
    return Request.newBuilder().id("r").model("model").priority(p).tenant(tenant)
        .prompt(PromptKey.unhashed(500)).build();
  }

  private static RoutingDecision admit(AdmissionController a, Request r, double backlog, long t) {
    List<CandidateView> views = new ArrayList<>();
    views.add(CandidateView.newBuilder().replicaId("a").estimatedQueueMillis(backlog).build());
    RoutingContext ctx = RoutingContexts.fixed(r, views, RandomSource.seeded(1), t,
        CostModel.defaults());
    return a.admit(ctx, RoutingDecision.routed(views.get(0), ctx.estimate(views.get(0))));
  }
}
