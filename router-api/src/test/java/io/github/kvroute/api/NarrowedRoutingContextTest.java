package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RoutingContext#withCandidates}: narrowed lists, everything else forwarded. */
class NarrowedRoutingContextTest {
  private static final CandidateView A = CandidateView.newBuilder().replicaId("a").build();
  private static final CandidateView B = CandidateView.newBuilder().replicaId("b").build();
  private static final Request REQUEST = Request.newBuilder().id("q").model("m")
      .prompt(PromptKey.unhashed(10)).build();

  /** A base whose every answer is recognisable. */
  private static final class Base implements RoutingContext {
    final RandomSource random = RandomSource.seeded(1);
    int estimateMillisCalls;

    @Override public Request request() { return REQUEST; }
    @Override public List<CandidateView> candidates() { return List.of(A, B); }
    @Override public List<CandidateView> prefillCandidates() { return List.of(); }
    @Override public List<CandidateView> decodeCandidates() { return List.of(); }
    @Override public RandomSource random() { return random; }
    @Override public long nowNanos() { return 42; }

    @Override
    public CostBreakdown estimate(CandidateView c) {
      return CostBreakdown.of("queue", c == A ? 1 : 2);
    }

    @Override
    public double estimateMillis(CandidateView c) {
      estimateMillisCalls++;
      return c == A ? 1 : 2;
    }
  }

  @Test
  void replacesTheListsAndForwardsEverythingElse() {
    Base base = new Base();
    List<CandidateView> only = new ArrayList<>(List.of(B));

    RoutingContext narrowed = base.withCandidates(only, List.of(A), List.of());
    only.clear();

    assertThat(narrowed.candidates()).as("a copy").containsExactly(B);
    assertThat(narrowed.prefillCandidates()).containsExactly(A);
    assertThat(narrowed.decodeCandidates()).isEmpty();
    assertThat(narrowed.request()).isSameAs(REQUEST);
    assertThat(narrowed.random()).isSameAs(base.random);
    assertThat(narrowed.nowNanos()).isEqualTo(42);
    assertThat(narrowed.estimate(B)).isEqualTo(CostBreakdown.of("queue", 2));
    assertThat(narrowed.estimateMillis(A)).isEqualTo(1);
    assertThat(base.estimateMillisCalls).as("the allocation-free path is forwarded").isEqualTo(1);
    assertThat(narrowed.noCandidates().reason()).isEqualTo(RejectReason.NO_CANDIDATES);
  }

  @Test
  void nullListsAreRejected() {
    assertThatThrownBy(() -> new Base().withCandidates(null, List.of(), List.of()))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("candidates: null");
  }
}
