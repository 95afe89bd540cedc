package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.testing.EqualsTester;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CostBreakdownTest {

  private static CostBreakdown sample() {
    return CostBreakdown.newBuilder().add("queue", 100.0).add("prefill", 120.5).add("load", 0.25).build();
  }

  @Test
  void totalIsTheSumOfTheTerms() {
    CostBreakdown c = sample();

    assertThat(c.totalMillis()).isEqualTo(100.0 + 120.5 + 0.25);
    assertThat(c.size()).isEqualTo(3);
    assertThat(c.isEmpty()).isFalse();
    assertThat(CostBreakdown.of("risk", 7.5).totalMillis()).isEqualTo(7.5);
  }

  @Test
  void termsAreLookedUpByIndexAndName() {
    CostBreakdown c = sample();

    assertThat(c.term(1)).isEqualTo("prefill");
    assertThat(c.millis(1)).isEqualTo(120.5);
    assertThat(c.millis("load")).hasValue(0.25);
    assertThat(c.millis("risk")).isEqualTo(OptionalDouble.empty());
    assertThatThrownBy(() -> c.term(3)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void duplicateTermIsRejected() {
    CostBreakdown.Builder b = CostBreakdown.newBuilder().add("queue", 1);

    assertThatIllegalArgumentException().isThrownBy(() -> b.add("queue", 2))
        .withMessageStartingWith("term: queue")
        .withMessageContaining("expected: each term once");
  }

  @ParameterizedTest
  @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
  void nonFiniteMillisAreRejected(double millis) {
    assertThatIllegalArgumentException().isThrownBy(() -> CostBreakdown.of("queue", millis))
        .withMessageStartingWith("queue: " + millis)
        .withMessageContaining("expected: finite");
  }

  @Test
  void blankOrNullTermIsRejected() {
    assertThatIllegalArgumentException().isThrownBy(() -> CostBreakdown.of(" ", 1))
        .withMessageStartingWith("term: \" \"").withMessageContaining("expected: non-blank");
    assertThatNullPointerException().isThrownBy(() -> CostBreakdown.of(null, 1))
        .withMessageContaining("term: null");
  }

  @Test
  void emptyHasNoTerms() {
    CostBreakdown empty = CostBreakdown.empty();

    assertThat(empty.isEmpty()).isTrue();
    assertThat(empty.size()).isZero();
    assertThat(empty.totalMillis()).isZero();
    assertThat(empty.asMap()).isEmpty();
    assertThat(CostBreakdown.newBuilder().build()).isEqualTo(empty);
  }

  @Test
  void asMapKeepsOrderAndIsUnmodifiable() {
    CostBreakdown.Builder b = CostBreakdown.newBuilder();
    Map<String, Double> expected = new LinkedHashMap<>();
    for (String term : new String[] {"z", "queue", "a", "prefill", "m", "load", "b"}) {
      double millis = term.length() * 1.5;
      b.add(term, millis);
      expected.put(term, millis);
    }
    Map<String, Double> map = b.build().asMap();

    assertThat(map).containsExactlyEntriesOf(expected);
    assertThatThrownBy(() -> map.put("x", 1.0)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void builtBreakdownIsNotAffectedByLaterAdds() {
    CostBreakdown.Builder b = CostBreakdown.newBuilder().add("queue", 1);
    CostBreakdown first = b.build();
    b.add("prefill", 2);

    assertThat(first.size()).isEqualTo(1);
    assertThat(b.build().size()).isEqualTo(2);
  }

  @Test
  void toStringMentionsEveryTerm() {
    assertThat(sample().toString()).contains("queue", "prefill", "load", "ms");
  }

  @Test
  void equalsAndHashCode() {
    new EqualsTester()
        .addEqualityGroup(sample(), sample())
        .addEqualityGroup(CostBreakdown.newBuilder().add("prefill", 120.5).add("queue", 100.0)
            .add("load", 0.25).build())
        .addEqualityGroup(CostBreakdown.of("queue", 1), CostBreakdown.of("queue", 1))
        .addEqualityGroup(CostBreakdown.of("queue", 2))
        .addEqualityGroup(CostBreakdown.of("risk", 1))
        .addEqualityGroup(CostBreakdown.empty(), CostBreakdown.newBuilder().build())
        .testEquals();
  }

  @Test
  void toStringIsLocaleIndependent() {
    Locale old = Locale.getDefault();
    try {
      Locale.setDefault(Locale.GERMANY);
      assertThat(CostBreakdown.of("queue", 100.0).toString()).contains("100.0");
    } finally {
      Locale.setDefault(old);
    }
  }

  @Test
  void aFullSizedBuilderHandsOverItsArraysButLaterAddsDoNotChangeWhatItBuilt() {
    CostBreakdown.Builder b = CostBreakdown.newBuilder(2).add("queue", 1).add("prefill", 2);
    CostBreakdown first = b.build();
    CostBreakdown second = b.add("risk", 4).build();

    assertThat(first.asMap()).containsExactly(Map.entry("queue", 1.0), Map.entry("prefill", 2.0));
    assertThat(first.totalMillis()).isEqualTo(3);
    assertThat(second.asMap()).containsExactly(Map.entry("queue", 1.0), Map.entry("prefill", 2.0),
        Map.entry("risk", 4.0));
    assertThat(CostBreakdown.newBuilder(0).add("queue", 5).build().totalMillis()).isEqualTo(5);
  }

  @Test
  void aNegativeExpectedTermCountIsAnArgumentError() {
    assertThatIllegalArgumentException().isThrownBy(() -> CostBreakdown.newBuilder(-1))
        .withMessage("expectedTerms: -1 (expected: >= 0)");
  }

  @Test
  void aBuilderSharingAnotherBreakdownsTerms_buildsWhatAFreshBuilderBuilds() {
    CostBreakdown like = sample();
    CostBreakdown.Builder b = CostBreakdown.newBuilder(like);
    CostBreakdown same = b.add("queue", 1).add("prefill", 2).add("load", 3).build();

    assertThat(same).isEqualTo(
        CostBreakdown.newBuilder().add("queue", 1).add("prefill", 2).add("load", 3).build());
    // adding after the build neither changes what was built nor the breakdown whose names it shares
    b.add("risk", 4);
    assertThat(same.size()).isEqualTo(3);
    assertThat(same.totalMillis()).isEqualTo(6);
    assertThat(b.build().asMap()).containsExactly(Map.entry("queue", 1.0), Map.entry("prefill", 2.0),
        Map.entry("load", 3.0), Map.entry("risk", 4.0));
    assertThat(like).isEqualTo(sample());
  }

  @Test
  void aBuilderSharingAnotherBreakdownsTerms_copiesThemWhenTheTermsDiffer() {
    CostBreakdown like = sample();

    CostBreakdown other = CostBreakdown.newBuilder(like).add("queue", 1).add("step", 2).build();
    CostBreakdown fewer = CostBreakdown.newBuilder(like).add("queue", 1).build();
    CostBreakdown none = CostBreakdown.newBuilder(like).build();

    assertThat(other.asMap()).containsExactly(Map.entry("queue", 1.0), Map.entry("step", 2.0));
    assertThat(fewer.asMap()).containsExactly(Map.entry("queue", 1.0));
    assertThat(none).isSameAs(CostBreakdown.empty());
    assertThat(like).isEqualTo(sample());
    assertThatIllegalArgumentException()
        .isThrownBy(() -> CostBreakdown.newBuilder(like).add("queue", 1).add("queue", 2))
        .withMessageContaining("each term once");
    assertThatNullPointerException().isThrownBy(() -> CostBreakdown.newBuilder((CostBreakdown) null))
        .withMessageStartingWith("sameTermsAs");
  }
}
