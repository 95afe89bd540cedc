package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.Scorer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each standard cost term on hand-built views, in milliseconds. */
class CostTermsTest {
  /** 4,000 prompt tokens, 256 planned output tokens. */
  private static final Request R = request("c-1", prompt(4_000, 1)).maxOutputTokens(256).build();

  @Test
  void standardTermsInTheDesignsOrder() {
    assertThat(CostTerms.standard(CostModel.defaults())).extracting(Scorer::name)
        .containsExactly("queue", "prefill", "step", "transfer", "risk", "kv_pressure");
  }

  @Test
  void everyCostTermHasItsScorerInTheStandardList() {
    for (CostTerm term : CostTerm.values()) {
      assertThat(CostTerms.of(term, CostModel.defaults()).name()).isEqualTo(term.termName());
      assertThat(CostTerm.named(term.termName())).contains(term);
    }
    assertThat(CostTerm.named("load")).as("former name").isEmpty();
  }

  @Test
  void stepIsOneAndAHalfReportedDecodeSteps() {
    CandidateView busy = CandidateView.newBuilder()
        .snapshot(TestData.ready("r0").decodeStepMillis(10.4).build()).build();
    CandidateView unreported = CandidateView.newBuilder()
        .snapshot(TestData.ready("r1").build()).build();

    assertThat(CostTerms.step().costMillis(R, busy)).isCloseTo(15.6, within(1e-9));
    assertThat(CostTerms.step().costMillis(R, unreported)).isZero();
    assertThat(CostTerms.step().costMillis(R, CandidateView.newBuilder().build()))
        .as("no snapshot").isZero();
  }

  @Test
  void queueIsTheViewsEstimate() {
    CandidateView v = CandidateView.newBuilder().estimatedQueueMillis(123.5).build();

    assertThat(CostTerms.queue().costMillis(R, v)).isEqualTo(123.5);
  }

  @ParameterizedTest(name = "matched {0} tokens, reliability {1} -> {2} ms")
  @CsvSource({
      "0,     1.0,  240",
      "2000,  1.0,  120",
      "4000,  1.0,  0",
      "2000,  0.5,  180",   // half the believed reuse: 1,000 reused, 3,000 recomputed
      "9999,  1.0,  0",     // a match longer than the prompt reuses at most the prompt
  })
  void prefillRecomputesWhatIsNotReliablyMatched(int matched, double reliability, double millis) {
    CandidateView v = CandidateView.newBuilder().matched(matched / 16, matched)
        .prefill(0, 0.06).cacheHitReliability(reliability).build();

    assertThat(CostTerms.prefill().costMillis(R, v)).isCloseTo(millis, within(1e-9));
  }

  @Test
  void prefillIncludesTheOverhead() {
    CandidateView v = CandidateView.newBuilder().prefill(20, 0.035).build();

    assertThat(CostTerms.prefill().costMillis(R, v)).isCloseTo(20 + 0.035 * 4_000, within(1e-9));
  }

  @Test
  void loadIsAdapterPlusKvTransfer() {
    CandidateView v = CandidateView.newBuilder().adapterLoadMillis(800).kvTransferMillis(95).build();

    assertThat(CostTerms.transfer().costMillis(R, v)).isEqualTo(895.0);
  }

  @ParameterizedTest(name = "free {0} tokens, matched {1} -> {2} ms")
  @CsvSource({
      "-1,    0,    0",       // unknown free KV: no opinion
      "4256,  0,    0",       // 4,000 + 256 fits exactly
      "4255,  0,    160",     // one short: the whole prompt's recompute, 20 + 4,000 x 0.035
      "2256,  2000, 0",       // the matched prefix needs no new KV
  })
  void kvPressureChargesAPreemptionWhenTheRequestWouldNotFit(long free, int matched, double ms) {
    CandidateView.Builder b = CandidateView.newBuilder().matched(matched / 16, matched)
        .prefill(20, 0.035);
    if (free >= 0) {
      b.freeKvTokens(free);
    }

    assertThat(CostTerms.kvPressure().costMillis(R, b.build())).isCloseTo(ms, within(1e-9));
  }

  @Test
  void costModelDefaultsAreTheSeedsConstants() {
    CostModel m = CostModel.defaults();

    assertThat(m.prefillOverheadMillis()).isEqualTo(20);
    assertThat(m.prefillMillisPerToken()).isEqualTo(0.035);
    assertThat(m.adapterLoadMillis()).isEqualTo(800);
    assertThat(m.busyRiskFactor()).isGreaterThanOrEqualTo(m.idleRiskFactor());
  }

  @Test
  void costModelRejectsBadValues() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> CostModel.newBuilder().riskFactors(0.5, 1.0))
        .withMessage("busyRiskFactor: 0.5 (expected: >= idleRiskFactor = 1.0)");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> CostModel.newBuilder().prefillMillisPerToken(-1))
        .withMessage("prefillMillisPerToken: -1.0 (expected: finite and >= 0.0)");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> CostModel.newBuilder().kvTransferBytesPerSecond(0))
        .withMessage("kvTransferBytesPerSecond: 0.0 (expected: finite and > 0)");
    assertThatIllegalStateException()
        .isThrownBy(() -> CostModel.newBuilder().adapterLoadMillis(1).adapterLoadMillis(2))
        .withMessage("adapterLoadMillis: already set (expected: each builder option set once)");
  }
}
