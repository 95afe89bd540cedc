package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import org.junit.jupiter.api.Test;

/** The registry's rings: reservations, settling, and removals of anchors and of the last block. */
class BlockRegistryTest {
  private final BlockRegistry registry = new BlockRegistry();
  private final boolean[] answer = new boolean[1];

  @Test
  void aReservationIsNoHolderUntilSettled() {
    CachedBlock b = registry.reserve(7, 0, answer);
    assertThat(answer[0]).as("nobody else holds 7").isFalse();
    assertThat(registry.lookup(7, 0)).isNull();
    assertThat(registry.heldElsewhere(7, 1)).isFalse();
    assertThat(registry.holderCount()).isZero();

    assertThat(registry.settle(b, answer)).isSameAs(b);
    assertThat(answer[0]).as("cached now").isTrue();
    assertThat(registry.lookup(7, 0)).isSameAs(b);
    assertThat(registry.heldElsewhere(7, 1)).isTrue();
    assertThat(registry.holderCount()).isEqualTo(1);
  }

  @Test
  void settlingAfterAnotherPrefillCachedTheBlockHandsThatOneBack() {
    CachedBlock first = registry.reserve(7, 0, answer);
    CachedBlock second = registry.reserve(7, 0, answer);
    registry.settle(first, answer);

    assertThat(registry.settle(second, answer)).isSameAs(first);
    assertThat(answer[0]).isFalse();
    assertThat(second.dropped).isTrue();
    assertThat(registry.walkHolders()).isEqualTo(1);
    assertThat(registry.walkPending()).isZero();
  }

  @Test
  void aReservationSeesWhatOtherReplicasHold() {
    registry.reserve(7, 2, answer);
    registry.reserve(7, 0, answer);
    assertThat(answer[0]).as("a reservation is not held").isFalse();
    registry.getOrAdd(7, 1, answer);
    registry.reserve(7, 0, answer);
    assertThat(answer[0]).isTrue();
    registry.reserve(7, 1, answer);
    assertThat(answer[0]).as("only its own replica holds 7").isFalse();
  }

  @Test
  void removingTheAnchorLeavesTheOthersFound() {
    CachedBlock a = registry.getOrAdd(0, 0, answer);
    CachedBlock b = registry.getOrAdd(0, 1, answer);
    CachedBlock c = registry.getOrAdd(9, 0, answer);
    CachedBlock d = registry.getOrAdd(9, 1, answer);
    assertThat(a.anchor && c.anchor).isTrue();

    registry.remove(a);
    registry.remove(c);
    assertThat(registry.lookup(0, 1)).isSameAs(b);
    assertThat(registry.lookup(9, 1)).isSameAs(d);
    assertThat(registry.lookup(9, 0)).isNull();
    assertThat(b.anchor && d.anchor).isTrue();

    registry.remove(b);
    registry.remove(d);
    assertThat(registry.size()).isZero();
    assertThat(registry.holderCount()).isZero();
    assertThatIllegalStateException().isThrownBy(() -> registry.remove(d));
  }
}
