package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ReplicaSnapshotTest {

  private static ReplicaSnapshot.Builder minimal() {
    return ReplicaSnapshot.newBuilder().replicaId("r1").model("llama");
  }

  @Test
  void unsetMeasurementsAreAbsentNotZero() {
    ReplicaSnapshot s = minimal().build();

    assertThat(s.replicaId()).isEqualTo("r1");
    assertThat(s.model()).isEqualTo("llama");
    assertThat(s.epoch()).isZero();
    assertThat(s.state()).isEqualTo(ReplicaState.READY);
    assertThat(s.role()).isEqualTo(ReplicaRole.MIXED);
    assertThat(s.modelVersion()).isEmpty();
    assertThat(List.of(s.waitingRequests(), s.runningRequests(), s.kvBlockSizeTokens()))
        .containsOnly(OptionalInt.empty());
    assertThat(List.of(s.observedAtNanos(), s.queuedPrefillTokens(), s.outstandingDecodeTokens(),
        s.kvBlocksUsed(), s.kvBlocksTotal(), s.kvCapacityTokens(), s.requestsReceivedTotal()))
        .containsOnly(OptionalLong.empty());
    assertThat(List.of(s.kvUtilization(), s.prefillTokensPerSecond(), s.decodeStepMillis(),
        s.estimatedQueueDelayMillis())).containsOnly(OptionalDouble.empty());
    assertThat(s.residentAdapters()).isEmpty();
    assertThat(s.loadableAdapters()).isEmpty();
  }

  @Test
  void setMeasurementsArePresentEvenWhenZero() {
    ReplicaSnapshot s = minimal().epoch(7).observedAtNanos(0).state(ReplicaState.DRAINING)
        .role(ReplicaRole.DECODE).modelVersion("v2").waitingRequests(0).runningRequests(3)
        .queuedPrefillTokens(0).outstandingDecodeTokens(900).kvBlocks(0, 100).kvBlockSizeTokens(16)
        .prefillTokensPerSecond(5000).decodeStepMillis(25).estimatedQueueDelayMillis(0)
        .requestsReceivedTotal(0).build();

    assertThat(s.epoch()).isEqualTo(7);
    assertThat(s.observedAtNanos()).hasValue(0);
    assertThat(s.state()).isEqualTo(ReplicaState.DRAINING);
    assertThat(s.role()).isEqualTo(ReplicaRole.DECODE);
    assertThat(s.modelVersion()).contains("v2");
    assertThat(s.waitingRequests()).hasValue(0);
    assertThat(s.runningRequests()).hasValue(3);
    assertThat(s.queuedPrefillTokens()).hasValue(0);
    assertThat(s.outstandingDecodeTokens()).hasValue(900);
    assertThat(s.kvBlocksUsed()).hasValue(0);
    assertThat(s.kvBlocksTotal()).hasValue(100);
    assertThat(s.kvBlockSizeTokens()).hasValue(16);
    assertThat(s.prefillTokensPerSecond()).hasValue(5000);
    assertThat(s.decodeStepMillis()).hasValue(25);
    assertThat(s.estimatedQueueDelayMillis()).hasValue(0);
    assertThat(s.requestsReceivedTotal()).hasValue(0);
    assertThat(s.toString()).contains("r1", "DRAINING", "llama");
  }

  @Test
  void requiredFieldsAreNamed() {
    assertThatIllegalArgumentException().isThrownBy(() -> ReplicaSnapshot.newBuilder().model("m").build())
        .withMessageStartingWith("replicaId: null").withMessageContaining("expected");
    assertThatIllegalArgumentException().isThrownBy(() -> ReplicaSnapshot.newBuilder().replicaId("r").build())
        .withMessageStartingWith("model: null").withMessageContaining("expected");
  }

  @Test
  void kvBlocksUsedAboveTotalIsRejected() {
    assertThatIllegalArgumentException().isThrownBy(() -> minimal().kvBlocks(11, 10))
        .withMessageContaining("kvBlocksUsed: 11")
        .withMessageContaining("expected: <= kvBlocksTotal = 10");
  }

  @ParameterizedTest(name = "used={0} total={1} blockSize={2}")
  @CsvSource({
      "30, 120, 16, 0.25, 1920",
      "120, 120, , 1.0, ",
      ", , 16, , ",
      "0, 0, 16, , 0"})
  void derivedKvFiguresNeedBothParts(
      Long used, Long total, Integer blockSize, Double utilization, Long capacity) {
    ReplicaSnapshot.Builder b = minimal();
    if (used != null) {
      b.kvBlocks(used, total);
    }
    if (blockSize != null) {
      b.kvBlockSizeTokens(blockSize);
    }
    ReplicaSnapshot s = b.build();

    assertThat(s.kvUtilization()).isEqualTo(
        utilization == null ? OptionalDouble.empty() : OptionalDouble.of(utilization));
    assertThat(s.kvCapacityTokens()).isEqualTo(
        capacity == null ? OptionalLong.empty() : OptionalLong.of(capacity));
  }

  @ParameterizedTest(name = "resident={0} loadable={1} adapter={2} -> {3}")
  @CsvSource(delimiter = '|', value = {
      "a      |       | a | true",
      "a      |       | z | true",
      "       |       | z | true",
      "a      | EMPTY | a | true",
      "a      | EMPTY | z | false",
      "       | b c   | b | true",
      "       | b c   | z | false",
      "a      | b     | a | true"})
  void canServeAdapter(String resident, String loadable, String adapter, boolean expected) {
    ReplicaSnapshot.Builder b = minimal().residentAdapters(words(resident));
    if (loadable != null) {
      b.loadableAdapters(loadable.equals("EMPTY") ? Set.of() : words(loadable));
    }

    assertThat(b.build().canServeAdapter(adapter)).isEqualTo(expected);
  }

  private static Set<String> words(String s) {
    return s == null ? Set.of() : Set.of(s.trim().split("\\s+"));
  }

  @Test
  void adapterSetsAreCopiedAndUnmodifiable() {
    Set<String> resident = new HashSet<>(Set.of("a"));
    Set<String> loadable = new HashSet<>(Set.of("b"));
    ReplicaSnapshot s = minimal().residentAdapters(resident).loadableAdapters(loadable).build();
    resident.add("x");
    loadable.add("y");

    assertThat(s.residentAdapters()).containsExactly("a");
    assertThat(s.loadableAdapters()).contains(Set.of("b"));
    assertThatThrownBy(() -> s.residentAdapters().add("z"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(s.canServeAdapter("y")).isFalse();
  }

  static Stream<Arguments> badValues() {
    return Stream.of(
        bad("epoch: -1", "expected: in [0, 4611686018427387903]", b -> b.epoch(-1)),
        bad("epoch: 4611686018427387904", "expected: in [0, 4611686018427387903]",
            b -> b.epoch(ReplicaSnapshot.MAX_EPOCH + 1)),
        bad("replicaId: \" \"", "expected: non-blank", b -> b.replicaId(" ")),
        bad("model: \"\"", "expected: non-blank", b -> b.model("")),
        bad("modelVersion: \" \"", "expected: non-blank", b -> b.modelVersion(" ")),
        bad("waitingRequests: -1", "expected: >= 0", b -> b.waitingRequests(-1)),
        bad("runningRequests: -2", "expected: >= 0", b -> b.runningRequests(-2)),
        bad("queuedPrefillTokens: -1", "expected: >= 0", b -> b.queuedPrefillTokens(-1)),
        bad("outstandingDecodeTokens: -1", "expected: >= 0", b -> b.outstandingDecodeTokens(-1)),
        bad("kvBlocksUsed: -1", "expected: >= 0", b -> b.kvBlocks(-1, 10)),
        bad("kvBlocksTotal: -1", "expected: >= 0", b -> b.kvBlocks(0, -1)),
        bad("kvBlockSizeTokens: 0", "expected: >= 1", b -> b.kvBlockSizeTokens(0)),
        bad("requestsReceivedTotal: -1", "expected: >= 0", b -> b.requestsReceivedTotal(-1)),
        bad("prefillTokensPerSecond: NaN", "expected: finite and > 0",
            b -> b.prefillTokensPerSecond(Double.NaN)),
        bad("prefillTokensPerSecond: Infinity", "expected: finite and > 0",
            b -> b.prefillTokensPerSecond(Double.POSITIVE_INFINITY)),
        bad("prefillTokensPerSecond: 0.0", "expected: finite and > 0", b -> b.prefillTokensPerSecond(0)),
        bad("decodeStepMillis: -1.0", "expected: finite and > 0", b -> b.decodeStepMillis(-1)),
        bad("decodeStepMillis: NaN", "expected: finite and > 0", b -> b.decodeStepMillis(Double.NaN)),
        bad("estimatedQueueDelayMillis: -0.5", "expected: finite and >= 0",
            b -> b.estimatedQueueDelayMillis(-0.5)),
        bad("estimatedQueueDelayMillis: Infinity", "expected: finite and >= 0",
            b -> b.estimatedQueueDelayMillis(Double.POSITIVE_INFINITY)),
        bad("estimatedQueueDelayMillis: NaN", "expected: finite and >= 0",
            b -> b.estimatedQueueDelayMillis(Double.NaN)));
  }

  private static Arguments bad(String nameAndValue, String expected, Consumer<ReplicaSnapshot.Builder> set) {
    return Arguments.of(nameAndValue, expected, set);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badValues")
  void badValuesAreRejectedWithNameValueAndExpectation(
      String nameAndValue, String expected, Consumer<ReplicaSnapshot.Builder> set) {
    assertThatIllegalArgumentException().isThrownBy(() -> set.accept(ReplicaSnapshot.newBuilder()))
        .withMessageStartingWith(nameAndValue)
        .withMessageContaining(expected);
  }

  static Stream<Arguments> everyOption() {
    return Stream.of(
        option("replicaId", b -> b.replicaId("x")),
        option("epoch", b -> b.epoch(1)),
        option("observedAtNanos", b -> b.observedAtNanos(1)),
        option("state", b -> b.state(ReplicaState.READY)),
        option("role", b -> b.role(ReplicaRole.MIXED)),
        option("model", b -> b.model("x")),
        option("modelVersion", b -> b.modelVersion("x")),
        option("waitingRequests", b -> b.waitingRequests(0)),
        option("runningRequests", b -> b.runningRequests(0)),
        option("queuedPrefillTokens", b -> b.queuedPrefillTokens(0)),
        option("outstandingDecodeTokens", b -> b.outstandingDecodeTokens(0)),
        option("kvBlocks", b -> b.kvBlocks(0, 0)),
        option("kvBlockSizeTokens", b -> b.kvBlockSizeTokens(16)),
        option("residentAdapters", b -> b.residentAdapters(Set.of())),
        option("loadableAdapters", b -> b.loadableAdapters(Set.of())),
        option("prefillTokensPerSecond", b -> b.prefillTokensPerSecond(1)),
        option("decodeStepMillis", b -> b.decodeStepMillis(1)),
        option("estimatedQueueDelayMillis", b -> b.estimatedQueueDelayMillis(0)),
        option("requestsReceivedTotal", b -> b.requestsReceivedTotal(0)));
  }

  private static Arguments option(String name, Consumer<ReplicaSnapshot.Builder> set) {
    return Arguments.of(name, set);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyOption")
  void settingAnOptionTwiceIsRejected(String name, Consumer<ReplicaSnapshot.Builder> set) {
    ReplicaSnapshot.Builder b = ReplicaSnapshot.newBuilder();
    set.accept(b);

    assertThatIllegalStateException().isThrownBy(() -> set.accept(b))
        .withMessageStartingWith(name + ": already set")
        .withMessageContaining("expected");
  }

  @Test
  void loadableAdaptersAbsentMeansAny() {
    assertThat(minimal().build().loadableAdapters()).isEqualTo(Optional.empty());
    assertThat(minimal().build().canServeAdapter("anything")).isTrue();
  }

  @Test
  void canServeAdapterNullIsAClearError() {
    ReplicaSnapshot s = ReplicaSnapshot.newBuilder().replicaId("r").model("m").build();
    assertThatThrownBy(() -> s.canServeAdapter(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("adapter: null");
  }

  @Test
  void kvCapacityDoesNotOverflowForHugeBlockCounts() {
    ReplicaSnapshot s = ReplicaSnapshot.newBuilder().replicaId("r").model("m")
        .kvBlocks(0, Long.MAX_VALUE / 2).kvBlockSizeTokens(16).build();
    assertThat(s.kvCapacityTokens().getAsLong()).isPositive();
  }
}
