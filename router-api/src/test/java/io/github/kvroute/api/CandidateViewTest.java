package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class CandidateViewTest {

  @Test
  void defaultsAreFullReliabilityAndAMinimalReadySnapshot() {
    CandidateView v = CandidateView.newBuilder().replicaId("r7").epoch(3).role(ReplicaRole.PREFILL).build();

    assertThat(v.cacheHitReliability()).isEqualTo(1.0);
    assertThat(v.cacheFromEvents()).isFalse();
    assertThat(v.kvUtilization()).isEmpty();
    assertThat(v.freeKvTokens()).isEmpty();
    assertThat(v.telemetryStale()).isFalse();
    ReplicaSnapshot s = v.snapshot();
    assertThat(s.state()).isEqualTo(ReplicaState.READY);
    assertThat(s.replicaId()).isEqualTo("r7");
    assertThat(s.epoch()).isEqualTo(3);
    assertThat(s.role()).isEqualTo(ReplicaRole.PREFILL);
    assertThat(s.model()).isEqualTo("model");
    assertThat(s.waitingRequests()).isEmpty();
  }

  @Test
  void givenSnapshotIsKept() {
    ReplicaSnapshot snapshot = ReplicaSnapshot.newBuilder().replicaId("r1").model("llama")
        .state(ReplicaState.DRAINING).build();

    assertThat(CandidateView.newBuilder().replicaId("r1").snapshot(snapshot).build().snapshot())
        .isSameAs(snapshot);
  }

  @Test
  void theCalibratedQueueDefaultsToTheEstimate() {
    CandidateView v = CandidateView.newBuilder().estimatedQueueMillis(40).build();

    assertThat(v.calibratedQueueMillis()).isEqualTo(40);
    assertThat(v.queueUncertaintyMillis()).isZero();
  }

  @Test
  void everySetterIsReflected() {
    CandidateView v = CandidateView.newBuilder().replicaId("replica-x").epoch(2).role(ReplicaRole.DECODE)
        .snapshotAgeMillis(150).telemetryStale(true).inFlight(3, 900).dispatchedSinceSnapshot(2)
        .estimatedQueueMillis(40).calibratedQueueMillis(70).queueUncertaintyMillis(12)
        .estimatedOutstandingTokens(1200)
        .matched(4, 64).prefill(15, 0.02).adapterLoadMillis(300).kvTransferMillis(12).kvUtilization(0.75)
        .freeKvTokens(4096).unseenArrivalsPerSecond(1.5).meanRequestCostMillis(210)
        .cacheHitReliability(0.5).cacheFromEvents(true).build();

    assertThat(v.replicaId()).isEqualTo("replica-x");
    assertThat(v.epoch()).isEqualTo(2);
    assertThat(v.role()).isEqualTo(ReplicaRole.DECODE);
    assertThat(v.snapshotAgeMillis()).isEqualTo(150);
    assertThat(v.telemetryStale()).isTrue();
    assertThat(v.inFlightRequests()).isEqualTo(3);
    assertThat(v.inFlightTokens()).isEqualTo(900);
    assertThat(v.dispatchedSinceSnapshot()).isEqualTo(2);
    assertThat(v.estimatedQueueMillis()).isEqualTo(40);
    assertThat(v.calibratedQueueMillis()).isEqualTo(70);
    assertThat(v.queueUncertaintyMillis()).isEqualTo(12);
    assertThat(v.estimatedOutstandingTokens()).isEqualTo(1200);
    assertThat(v.matchedBlocks()).isEqualTo(4);
    assertThat(v.matchedTokens()).isEqualTo(64);
    assertThat(v.prefillOverheadMillis()).isEqualTo(15);
    assertThat(v.prefillMillisPerToken()).isEqualTo(0.02);
    assertThat(v.adapterLoadMillis()).isEqualTo(300);
    assertThat(v.kvTransferMillis()).isEqualTo(12);
    assertThat(v.kvUtilization()).hasValue(0.75);
    assertThat(v.freeKvTokens()).hasValue(4096);
    assertThat(v.unseenArrivalsPerSecond()).isEqualTo(1.5);
    assertThat(v.meanRequestCostMillis()).isEqualTo(210);
    assertThat(v.cacheHitReliability()).isEqualTo(0.5);
    assertThat(v.cacheFromEvents()).isTrue();
    assertThat(v.toString()).contains("replica-x");
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.0, 1.0})
  void unitIntervalBoundsAreAccepted(double v) {
    CandidateView view = CandidateView.newBuilder().kvUtilization(v).cacheHitReliability(v).build();

    assertThat(view.kvUtilization()).hasValue(v);
    assertThat(view.cacheHitReliability()).isEqualTo(v);
  }

  static Stream<Arguments> badValues() {
    return Stream.of(
        bad("kvUtilization: -0.1", "in [0, 1]", b -> b.kvUtilization(-0.1)),
        bad("kvUtilization: 1.01", "in [0, 1]", b -> b.kvUtilization(1.01)),
        bad("kvUtilization: NaN", "in [0, 1]", b -> b.kvUtilization(Double.NaN)),
        bad("cacheHitReliability: 1.5", "in [0, 1]", b -> b.cacheHitReliability(1.5)),
        bad("cacheHitReliability: -1.0", "in [0, 1]", b -> b.cacheHitReliability(-1)),
        bad("replicaId: \" \"", "non-blank", b -> b.replicaId(" ")),
        bad("epoch: -1", ">= 0", b -> b.epoch(-1)),
        bad("snapshotAgeMillis: -1.0", "finite and >= 0", b -> b.snapshotAgeMillis(-1)),
        bad("inFlightRequests: -1", ">= 0", b -> b.inFlight(-1, 0)),
        bad("inFlightTokens: -1", ">= 0", b -> b.inFlight(0, -1)),
        bad("dispatchedSinceSnapshot: -1", ">= 0", b -> b.dispatchedSinceSnapshot(-1)),
        bad("estimatedQueueMillis: Infinity", "finite and >= 0",
            b -> b.estimatedQueueMillis(Double.POSITIVE_INFINITY)),
        bad("calibratedQueueMillis: -1.0", "finite and >= 0", b -> b.calibratedQueueMillis(-1)),
        bad("queueUncertaintyMillis: NaN", "finite and >= 0",
            b -> b.queueUncertaintyMillis(Double.NaN)),
        bad("estimatedOutstandingTokens: -1", ">= 0", b -> b.estimatedOutstandingTokens(-1)),
        bad("matchedBlocks: -1", ">= 0", b -> b.matched(-1, 0)),
        bad("matchedTokens: -1", ">= 0", b -> b.matched(0, -1)),
        bad("prefillOverheadMillis: -1.0", "finite and >= 0", b -> b.prefill(-1, 0.1)),
        bad("prefillMillisPerToken: NaN", "finite and >= 0", b -> b.prefill(1, Double.NaN)),
        bad("adapterLoadMillis: -1.0", "finite and >= 0", b -> b.adapterLoadMillis(-1)),
        bad("kvTransferMillis: NaN", "finite and >= 0", b -> b.kvTransferMillis(Double.NaN)),
        bad("freeKvTokens: -1", ">= 0", b -> b.freeKvTokens(-1)),
        bad("unseenArrivalsPerSecond: -0.5", "finite and >= 0", b -> b.unseenArrivalsPerSecond(-0.5)),
        bad("meanRequestCostMillis: Infinity", "finite and >= 0",
            b -> b.meanRequestCostMillis(Double.POSITIVE_INFINITY)));
  }

  private static Arguments bad(String nameAndValue, String expected, Consumer<CandidateView.Builder> set) {
    return Arguments.of(nameAndValue, expected, set);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badValues")
  void badValuesAreRejectedWithNameValueAndExpectation(
      String nameAndValue, String expected, Consumer<CandidateView.Builder> set) {
    assertThatIllegalArgumentException().isThrownBy(() -> set.accept(CandidateView.newBuilder()))
        .withMessageStartingWith(nameAndValue)
        .withMessageContaining("(expected: " + expected + ")");
  }

  @Test
  void withoutASnapshotTheAssumedReportMatchesTheViewsIdAndEpoch() {
    CandidateView view = CandidateView.newBuilder().replicaId("b").epoch(5).build();

    assertThat(view.snapshot().replicaId()).isEqualTo("b");
    assertThat(view.snapshot().epoch()).isEqualTo(5);
  }

  @Test
  void eachOptionMayBeSetOnce() {
    CandidateView.Builder b = CandidateView.newBuilder().replicaId("a").inFlight(1, 10);

    assertThatIllegalStateException().isThrownBy(() -> b.replicaId("b"))
        .withMessage("replicaId: already set (expected: each builder option set once)");
    assertThatIllegalStateException().isThrownBy(() -> b.inFlight(2, 20, 10))
        .withMessage("inFlight: already set (expected: each builder option set once)");
    assertThat(b.build().replicaId()).isEqualTo("a");
  }
}
