package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Priority;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Fleet backpressure by tier, the interactive reserve, and tenant fair shares. */
class TieredAdmissionTest {
  private static Request request(Priority priority, String tenant) {
    return Request.newBuilder().id("r-" + priority + tenant).model("model").priority(priority)
        .tenant(tenant).prompt(PromptKey.unhashed(1_000)).build();
  }

  /** Two replicas whose queues average {@code backlogMillis}. */
  private static RoutingContext fleet(Request r, double backlogMillis, long nowNanos) {
    return RoutingContexts.fixed(r, List.of(
        CandidateView.newBuilder().replicaId("a").estimatedQueueMillis(backlogMillis / 2).build(),
        CandidateView.newBuilder().replicaId("b").estimatedQueueMillis(backlogMillis * 1.5)
            .build()), RandomSource.seeded(1), nowNanos, CostModel.defaults());
  }

  private static RoutingDecision admit(AdmissionController a, RoutingContext ctx) {
    CandidateView c = ctx.candidates().get(0);
    return a.admit(ctx, RoutingDecision.routed(c, ctx.estimate(c)));
  }

  @Test
  void theTiersNest_batchFirst_interactiveLast_withAFifthReservedForInteractive() {
    FleetBackpressure b = new FleetBackpressure(2_000, 0.2);

    assertThat(b.limitMillis(Priority.INTERACTIVE)).isEqualTo(2_000);
    assertThat(b.limitMillis(Priority.STANDARD)).isCloseTo(1_600, within(1e-9));
    assertThat(b.limitMillis(Priority.BATCH)).isCloseTo(800, within(1e-9));
  }

  @Test
  void atA1200MsBacklogBatchIsShedWithARetryAfter_standardAndInteractiveAdmitted() {
    AdmissionController a = Admission.newBuilder().queueLimit(Priority.BATCH, null)
        .fleetBacklogLimit(Duration.ofSeconds(2)).build();

    RoutingDecision batch = admit(a, fleet(request(Priority.BATCH, "t"), 1_200, 0));

    assertThat(batch.reason()).isEqualTo(RejectReason.OVERLOADED);
    assertThat(batch.detail()).isEqualTo("fleet backlog 1200 ms reached the 800 ms limit for BATCH");
    assertThat(batch.retryAfter()).contains(Duration.ofMillis(400));
    assertThat(admit(a, fleet(request(Priority.STANDARD, "t"), 1_200, 0)).isRouted()).isTrue();
    assertThat(admit(a, fleet(request(Priority.INTERACTIVE, "t"), 1_200, 0)).isRouted()).isTrue();
  }

  @Test
  void waterFilling_aTenantTakingWhatOthersAskedForIsRefused_butKeepsItsShare() {
    TenantFairness f = new TenantFairness(Map.of());
    long t = 0;
    // 20 s at 10 ticks a second: chat-a asks 100 ms/s, chat-b 150, bulk 2,000; all of chat's
    // is admitted, and bulk 750 ms/s: the fleet admits 1,000 ms/s
    for (int s = 0; s < 200; s++, t += 100_000_000L) {
      tick(f, t, 10, 10, 15, 15, 200, 75);
    }
    // bulk's allocation is 1,000 - 100 - 150 = 750, what it gets: not refused
    assertThat(f.offer("bulk", 200, t)).isNull();
    // then the chats' requests stop getting in while bulk's do: bulk is above its allocation
    for (int s = 0; s < 50; s++, t += 100_000_000L) {
      tick(f, t, 10, 0, 15, 0, 200, 150);
    }
    TenantFairness.Refusal r = f.offer("bulk", 200, t);
    assertThat(r).isNotNull();
    assertThat(r.share()).isGreaterThan(1.1 * r.fairShare());
    assertThat(r.fairShare()).isGreaterThan(0.5); // its share is cut, not to zero
    assertThat(r.retryAfterMillis()).isPositive();
    assertThat(f.offer("chat-a", 10, t)).isNull(); // a tenant under its demand is never refused
  }

  private static void tick(TenantFairness f, long t, double aOffered, double aAdmitted,
      double bOffered, double bAdmitted, double bulkOffered, double bulkAdmitted) {
    f.offer("chat-a", aOffered, t);
    f.admitted("chat-a", aAdmitted, t);
    f.offer("chat-b", bOffered, t);
    f.admitted("chat-b", bAdmitted, t);
    f.offer("bulk", bulkOffered, t);
    f.admitted("bulk", bulkAdmitted, t);
  }

  @Test
  void fairnessWithoutABacklogLimitIsAStateError_andBadValuesAreArgumentErrors() {
    assertThatThrownBy(() -> Admission.newBuilder().tenantFairness(Map.of()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("tenantFairness: set without fleetBacklogLimit");
    assertThatThrownBy(() -> Admission.newBuilder().interactiveReserve(0.95))
        .hasMessage("interactiveReserve: 0.95 (expected: in [0, 0.9])");
    assertThatThrownBy(() -> Admission.newBuilder().fleetBacklogLimit(Duration.ZERO))
        .hasMessage("fleetBacklogLimit: PT0S (expected: > 0)");
    assertThatThrownBy(() -> Admission.newBuilder().tenantFairness(Map.of("t", 0.0)))
        .hasMessage("tenantFairness: t=0.0 (expected: a tenant and a weight > 0)");
  }
}
