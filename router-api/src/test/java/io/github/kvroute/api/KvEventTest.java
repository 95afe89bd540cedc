package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.testing.EqualsTester;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class KvEventTest {
  private static final CacheNamespace NS = CacheNamespace.of("m", "v1", null);

  @Test
  void factoriesSetTypeReplicaEpochAndKeys() {
    KvEvent stored = KvEvent.stored("r1", 3, 10, 20, 30);
    KvEvent removed = KvEvent.removed("r2", 4, 40);
    KvEvent cleared = KvEvent.cleared("r3", 5);

    assertThat(stored.type()).isEqualTo(KvEvent.Type.STORED);
    assertThat(stored.replicaId()).isEqualTo("r1");
    assertThat(stored.epoch()).isEqualTo(3);
    assertThat(stored.blockCount()).isEqualTo(3);
    assertThat(stored.blockKeys()).containsExactly(10, 20, 30);
    assertThat(stored.blockKey(1)).isEqualTo(20);
    assertThat(removed.type()).isEqualTo(KvEvent.Type.REMOVED);
    assertThat(removed.blockKeys()).containsExactly(40);
    assertThat(cleared.type()).isEqualTo(KvEvent.Type.CLEARED);
    assertThat(cleared.blockCount()).isZero();
    assertThat(cleared.blockKeys()).isEmpty();
  }

  @Test
  void engineHashesAreMappedIntoTheNamespace() {
    KvEvent stored = KvEvent.storedEngineHashes("r1", 0, NS, 7, 8);
    KvEvent removed = KvEvent.removedEngineHashes("r1", 0, NS, 7, 8);
    KvEvent otherNamespace =
        KvEvent.storedEngineHashes("r1", 0, CacheNamespace.of("m", "v2", null), 7, 8);
    long[] expected = {PromptKey.namespacedHash(NS, 7), PromptKey.namespacedHash(NS, 8)};

    assertThat(stored.type()).isEqualTo(KvEvent.Type.STORED);
    assertThat(stored.blockKeys()).containsExactly(expected);
    assertThat(removed.type()).isEqualTo(KvEvent.Type.REMOVED);
    assertThat(removed.blockKeys()).containsExactly(expected);
    assertThat(otherNamespace.blockKeys()).doesNotContain(expected);
    assertThat(PromptKey.ofBlockHashes(new long[] {7, 8}, 16, 32, NS).blockHashes())
        .containsExactly(stored.blockKeys());
  }

  @Test
  void keysAreCopiedInAndOut() {
    long[] keys = {1, 2, 3};
    long[] engine = {4, 5};
    KvEvent stored = KvEvent.stored("r", 0, keys);
    KvEvent mapped = KvEvent.storedEngineHashes("r", 0, NS, engine);
    long mappedFirst = mapped.blockKey(0);

    keys[0] = 100;
    engine[0] = 100;
    stored.blockKeys()[1] = 200;

    assertThat(stored.blockKeys()).containsExactly(1, 2, 3);
    assertThat(mapped.blockKey(0)).isEqualTo(mappedFirst);
  }

  @Test
  void blockKeyOutsideTheEventThrows() {
    assertThatThrownBy(() -> KvEvent.stored("r", 0, 1).blockKey(1))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  static Stream<Arguments> factories() {
    return Stream.of(
        factory("stored", (id, epoch) -> KvEvent.stored(id, epoch, 1)),
        factory("removed", (id, epoch) -> KvEvent.removed(id, epoch, 1)),
        factory("cleared", KvEvent::cleared),
        factory("storedEngineHashes", (id, epoch) -> KvEvent.storedEngineHashes(id, epoch, NS, 1)),
        factory("removedEngineHashes", (id, epoch) -> KvEvent.removedEngineHashes(id, epoch, NS, 1)));
  }

  private static Arguments factory(String name, BiFunction<String, Long, KvEvent> create) {
    return Arguments.of(name, create);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("factories")
  void negativeEpochIsRejected(String name, BiFunction<String, Long, KvEvent> create) {
    assertThatIllegalArgumentException().isThrownBy(() -> create.apply("r", -1L))
        .withMessageContaining("epoch: -1")
        .withMessageContaining("expected: in [0, 4611686018427387903]");
    assertThatIllegalArgumentException().isThrownBy(() -> create.apply("r", Long.MAX_VALUE))
        .withMessage("epoch: 9223372036854775807 (expected: in [0, 4611686018427387903])");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("factories")
  void blankReplicaIdIsRejected(String name, BiFunction<String, Long, KvEvent> create) {
    assertThatIllegalArgumentException().isThrownBy(() -> create.apply(" ", 0L))
        .withMessageContaining("replicaId: \" \"")
        .withMessageContaining("expected: non-blank");
    assertThatNullPointerException().isThrownBy(() -> create.apply(null, 0L))
        .withMessageContaining("replicaId: null");
  }

  @Test
  void nullArraysAndNamespacesAreRejected() {
    assertThatNullPointerException().isThrownBy(() -> KvEvent.stored("r", 0, (long[]) null))
        .withMessageContaining("blockKeys: null");
    assertThatNullPointerException()
        .isThrownBy(() -> KvEvent.storedEngineHashes("r", 0, null, 1))
        .withMessageContaining("namespace: null");
    assertThatNullPointerException()
        .isThrownBy(() -> KvEvent.removedEngineHashes("r", 0, NS, (long[]) null))
        .withMessageContaining("engineHashes: null");
  }

  @Test
  void equalsAndHashCode() {
    new EqualsTester()
        .addEqualityGroup(KvEvent.stored("r", 1, 1, 2), KvEvent.stored("r", 1, 1, 2))
        .addEqualityGroup(KvEvent.stored("r", 1, 2, 1))
        .addEqualityGroup(KvEvent.stored("r", 2, 1, 2))
        .addEqualityGroup(KvEvent.stored("s", 1, 1, 2))
        .addEqualityGroup(KvEvent.removed("r", 1, 1, 2))
        .addEqualityGroup(KvEvent.cleared("r", 1), KvEvent.cleared("r", 1))
        .addEqualityGroup(KvEvent.cleared("r", 2))
        .addEqualityGroup(KvEvent.stored("r", 1))
        .testEquals();
  }

  @Test
  void toStringNamesTypeAndReplica() {
    assertThat(KvEvent.removed("r9", 4, 1, 2).toString()).contains("REMOVED", "r9");
  }
}
