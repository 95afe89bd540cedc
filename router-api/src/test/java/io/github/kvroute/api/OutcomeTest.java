package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class OutcomeTest {
  private static final Set<OutcomeStatus> AGAINST_REPLICA =
      EnumSet.of(OutcomeStatus.REPLICA_ERROR, OutcomeStatus.TIMEOUT, OutcomeStatus.CONNECTION_FAILED);

  private static Outcome.Builder minimal(OutcomeStatus status) {
    return Outcome.newBuilder().requestId("req").replicaId("r1").epoch(0).status(status);
  }

  @Test
  void minimalOutcomeHasDefaultsAndNoMeasurements() {
    Outcome o = minimal(OutcomeStatus.SUCCESS).build();

    assertThat(o.requestId()).isEqualTo("req");
    assertThat(o.replicaId()).isEqualTo("r1");
    assertThat(o.status()).isEqualTo(OutcomeStatus.SUCCESS);
    assertThat(o.attempt()).isEqualTo(1);
    assertThat(o.epoch()).isZero();
    assertThat(o.queueTime()).isEmpty();
    assertThat(o.ttft()).isEmpty();
    assertThat(o.cachedTokens()).isEmpty();
    assertThat(o.outputTokens()).isEmpty();
  }

  @Test
  void allOptionsAreKept() {
    Outcome o = Outcome.newBuilder().requestId("req").replicaId("r1")
        .status(OutcomeStatus.TIMEOUT).attempt(3).epoch(9).queueTime(Duration.ofMillis(40))
        .ttft(Duration.ofMillis(40)).cachedTokens(0).outputTokens(12).build();

    assertThat(o.attempt()).isEqualTo(3);
    assertThat(o.epoch()).isEqualTo(9);
    assertThat(o.queueTime()).contains(Duration.ofMillis(40));
    assertThat(o.ttft()).contains(Duration.ofMillis(40));
    assertThat(o.cachedTokens()).hasValue(0);
    assertThat(o.outputTokens()).hasValue(12);
    assertThat(o.toString()).contains("req", "r1", "TIMEOUT");
  }

  static Stream<Arguments> missingRequired() {
    return Stream.of(
        Arguments.of("requestId",
            Outcome.newBuilder().replicaId("r").epoch(0).status(OutcomeStatus.SUCCESS)),
        Arguments.of("replicaId",
            Outcome.newBuilder().requestId("q").epoch(0).status(OutcomeStatus.SUCCESS)),
        Arguments.of("status", Outcome.newBuilder().requestId("q").replicaId("r").epoch(0)));
  }

  @Test
  void anOutcomeWithoutAnEpochIsRejected() {
    assertThatIllegalArgumentException().isThrownBy(
            Outcome.newBuilder().requestId("q").replicaId("r").status(OutcomeStatus.SUCCESS)::build)
        .withMessage("epoch: unset (expected: the routed decision's epoch, set before build)");
  }

  @Test
  void anAbsurdEpochIsRejected() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Outcome.newBuilder().epoch(Long.MAX_VALUE))
        .withMessage("epoch: 9223372036854775807 (expected: in [0, 4611686018427387903])");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("missingRequired")
  void missingRequiredFieldIsNamed(String field, Outcome.Builder builder) {
    assertThatIllegalArgumentException().isThrownBy(builder::build)
        .withMessageStartingWith(field + ": null")
        .withMessageContaining("expected");
  }

  /** The queue time bounds the TTFT and the prefill time (both measured from the same send). */
  static Stream<Arguments> timesAfterTheQueue() {
    return Stream.of(
        Arguments.of("ttft", (Consumer<Outcome.Builder>) b -> b.ttft(Duration.ofMillis(150))),
        Arguments.of("prefillTime",
            (Consumer<Outcome.Builder>) b -> b.prefillTime(Duration.ofMillis(150))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("timesAfterTheQueue")
  void aQueueTimeLongerThanALaterTimeIsRejected(String later, Consumer<Outcome.Builder> set) {
    Outcome.Builder b = minimal(OutcomeStatus.SUCCESS).queueTime(Duration.ofMillis(200));
    set.accept(b);

    assertThatIllegalArgumentException().isThrownBy(b::build)
        .withMessageStartingWith("queueTime: " + Duration.ofMillis(200))
        .withMessageContaining("expected: <= " + later + " = " + Duration.ofMillis(150));
  }

  @Test
  void aPrefillTimeAfterTheFirstTokenIsAccepted() {
    Outcome o = minimal(OutcomeStatus.SUCCESS).ttft(Duration.ofMillis(300))
        .prefillTime(Duration.ofMillis(320)).build();

    assertThat(o.prefillTime()).contains(Duration.ofMillis(320));
    assertThat(o.toString()).contains("prefill=320");
  }

  @Test
  void aPrefillTimeAloneMeansPrefillStarted() {
    Outcome o = minimal(OutcomeStatus.CANCELLED).prefillTime(Duration.ofMillis(80)).build();

    assertThat(o.prefillStarted()).isTrue();
    assertThat(minimal(OutcomeStatus.CANCELLED).build().prefillStarted()).isFalse();
  }

  static Stream<Arguments> badValues() {
    return Stream.of(
        bad("attempt: 0", "expected: >= 1", b -> b.attempt(0)),
        bad("epoch: -1", "expected: in [0, 4611686018427387903]", b -> b.epoch(-1)),
        bad("cachedTokens: -1", "expected: >= 0", b -> b.cachedTokens(-1)),
        bad("outputTokens: -1", "expected: >= 0", b -> b.outputTokens(-1)),
        bad("queueTime: PT-0.001S", "expected: >= 0", b -> b.queueTime(Duration.ofMillis(-1))),
        bad("ttft: PT-1S", "expected: >= 0", b -> b.ttft(Duration.ofSeconds(-1))),
        bad("prefillTime: PT-1S", "expected: >= 0", b -> b.prefillTime(Duration.ofSeconds(-1))),
        bad("requestId: \" \"", "expected: non-blank", b -> b.requestId(" ")),
        bad("replicaId: \"\"", "expected: non-blank", b -> b.replicaId("")));
  }

  private static Arguments bad(String nameAndValue, String expected, Consumer<Outcome.Builder> set) {
    return Arguments.of(nameAndValue, expected, set);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badValues")
  void badValuesAreRejected(String nameAndValue, String expected, Consumer<Outcome.Builder> set) {
    assertThatIllegalArgumentException().isThrownBy(() -> set.accept(Outcome.newBuilder()))
        .withMessageStartingWith(nameAndValue)
        .withMessageContaining(expected);
  }

  static Stream<Arguments> everyOption() {
    return Stream.of(
        option("requestId", b -> b.requestId("x")),
        option("attempt", b -> b.attempt(1)),
        option("replicaId", b -> b.replicaId("x")),
        option("epoch", b -> b.epoch(0)),
        option("status", b -> b.status(OutcomeStatus.SUCCESS)),
        option("queueTime", b -> b.queueTime(Duration.ZERO)),
        option("cachedTokens", b -> b.cachedTokens(0)),
        option("ttft", b -> b.ttft(Duration.ZERO)),
        option("prefillTime", b -> b.prefillTime(Duration.ZERO)),
        option("outputTokens", b -> b.outputTokens(0)));
  }

  private static Arguments option(String name, Consumer<Outcome.Builder> set) {
    return Arguments.of(name, set);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyOption")
  void settingAnOptionTwiceIsRejected(String name, Consumer<Outcome.Builder> set) {
    Outcome.Builder b = Outcome.newBuilder();
    set.accept(b);

    assertThatIllegalStateException().isThrownBy(() -> set.accept(b))
        .withMessageStartingWith(name + ": already set");
  }

  @Test
  void successMeansPrefillStarted() {
    assertThat(minimal(OutcomeStatus.SUCCESS).build().prefillStarted()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(value = OutcomeStatus.class, names = "SUCCESS", mode = EnumSource.Mode.EXCLUDE)
  void failureStartedPrefillOnlyWithTtftOrCachedTokens(OutcomeStatus status) {
    assertThat(minimal(status).build().prefillStarted()).isFalse();
    assertThat(minimal(status).ttft(Duration.ofMillis(80)).build().prefillStarted()).isTrue();
    assertThat(minimal(status).cachedTokens(0).build().prefillStarted()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(OutcomeStatus.class)
  void onlyReplicaFaultsCountAgainstTheReplica(OutcomeStatus status) {
    assertThat(status.countsAgainstReplica()).isEqualTo(AGAINST_REPLICA.contains(status));
    assertThat(status.isSuccess()).isEqualTo(status == OutcomeStatus.SUCCESS);
  }
}
