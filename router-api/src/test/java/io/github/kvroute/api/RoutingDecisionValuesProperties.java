package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * A decision whose cost is given term by term (kept as values, its breakdown built when asked) is
 * the same decision as one given the breakdown of those terms and values.
 */
class RoutingDecisionValuesProperties {
  private static final List<String> NAMES =
      List.of("queue", "prefill", "step", "transfer", "risk", "kv_pressure", "host-a", "host-b");
  private static final CandidateView VIEW = CandidateView.newBuilder()
      .replicaId("r-1").epoch(3).role(ReplicaRole.MIXED).matched(4, 64).build();

  /** Finite values of either sign, zeros of both signs among them. */
  @Provide
  Arbitrary<double[]> values() {
    return Arbitraries.oneOf(Arbitraries.doubles().between(-1e9, 1e12),
            Arbitraries.of(0.0, -0.0, Double.MAX_VALUE, Double.MIN_VALUE))
        .array(double[].class).ofSize(NAMES.size());
  }

  private static CostBreakdown terms(int count, double[] millis) {
    CostBreakdown.Builder b = CostBreakdown.newBuilder();
    for (int i = 0; i < count; i++) {
      b.add(NAMES.get(i), millis[i]);
    }
    return b.build();
  }

  @Property
  void aCostGivenAsValuesIsTheCostGivenAsItsBreakdown(
      @ForAll @IntRange(min = 0, max = 8) int count, @ForAll("values") double[] millis,
      @ForAll("values") double[] otherValues, @ForAll @IntRange(min = 0, max = 1000) int score) {
    CostBreakdown breakdown = terms(count, millis);
    // the names come from a breakdown whose own values differ: only its names are taken
    CostBreakdown sameTerms = terms(count, otherValues);
    double[] given = millis.clone();

    RoutingDecision values = RoutingDecision.routed(VIEW, sameTerms, given, score);
    given[0] = 12345; // copied: a later change of the caller's array changes nothing
    RoutingDecision built = RoutingDecision.routed(VIEW, breakdown, score);

    assertThat(Double.doubleToRawLongBits(values.costMillis()))
        .isEqualTo(Double.doubleToRawLongBits(breakdown.totalMillis()));
    for (int i = 0; i < NAMES.size(); i++) {
      assertThat(values.costTermMillis(NAMES.get(i), -7))
          .isEqualTo(breakdown.millis(NAMES.get(i)).orElse(-7));
    }
    assertThat(values.hasCost()).isEqualTo(!breakdown.isEmpty());
    assertThat(values).isEqualTo(built);
    assertThat(values.hashCode()).isEqualTo(built.hashCode());
    assertThat(values.toString()).isEqualTo(built.toString());
    assertThat(values.cost()).isEqualTo(breakdown).isSameAs(values.cost());
    assertThat(values.cost().totalMillis()).isEqualTo(breakdown.totalMillis());
    // a score or a breakdown put in later keeps the rest as it was
    assertThat(values.withScore(score + 1)).isEqualTo(built.withScore(score + 1));
    assertThat(values.withCost(CostBreakdown.of("queue", 1)).cost())
        .isEqualTo(CostBreakdown.of("queue", 1));
  }

  @Property
  void withCostAsValuesIsWithCostOfItsBreakdown(
      @ForAll @IntRange(min = 0, max = 8) int count, @ForAll("values") double[] millis) {
    CostBreakdown breakdown = terms(count, millis);
    RoutingDecision plain = RoutingDecision.routed(VIEW, CostBreakdown.empty());

    RoutingDecision values = plain.withCost(terms(count, new double[NAMES.size()]), millis);

    assertThat(values).isEqualTo(plain.withCost(breakdown));
    assertThat(values.costMillis()).isEqualTo(breakdown.totalMillis());
    assertThat(values.score()).isEmpty();
  }

  @Test
  void badValuesAreRefusedByName() {
    CostBreakdown three = terms(3, new double[NAMES.size()]);

    assertThatIllegalArgumentException()
        .isThrownBy(() -> RoutingDecision.routed(VIEW, three, new double[2], 1))
        .withMessage("millis.length: 2 (expected: at least sameTermsAs.size(), 3)");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> RoutingDecision.routed(VIEW, three, new double[] {1, Double.NaN, 2}, 1))
        .withMessage("prefill: NaN (expected: finite milliseconds)");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> RoutingDecision.routed(VIEW, three, new double[3], Double.NaN))
        .withMessageStartingWith("score: NaN");
    assertThatIllegalStateException()
        .isThrownBy(() -> RoutingDecision.rejected(RejectReason.POLICY, "no", null)
            .withCost(three, new double[3]));
  }

  @Test
  void aPairOrARejectionKeepsItsOwnFields() {
    RoutingDecision pair = RoutingDecision.routedPair(VIEW, VIEW, CostBreakdown.of("queue", 2));
    RoutingDecision rejected = RoutingDecision.rejected(RejectReason.DEADLINE, "late", null);

    assertThat(pair.prefillReplicaId()).contains("r-1");
    assertThat(pair.prefillEpoch()).isEqualTo(3);
    assertThat(pair.isRouted()).isTrue();
    assertThat(pair.withScore(2).prefillReplicaId()).contains("r-1");
    assertThat(rejected.isRouted()).isFalse();
    assertThat(rejected.reason()).isEqualTo(RejectReason.DEADLINE);
    assertThat(rejected.costMillis()).isZero();
    assertThat(rejected.hasCost()).isFalse();
    assertThat(rejected.prefillEpoch()).isEqualTo(-1);
  }
}
