package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The KV move of a disaggregated pair, per link class, with the cost model's 70B constants. */
class TransferCostTest {
  private static final long KV_BYTES_70B = 320L * 1024;

  private final Topology topology = Topology.newBuilder()
      .place("p0", "node-a", "rack-1").place("d0", "node-a", "rack-1")
      .place("d1", "node-b", "rack-1").place("d2", "node-c", "rack-2")
      .build();

  @Test
  void sixThousandTokensOfA70bModelMoveInAbout95MsOnTheReferenceLink() {
    // 6,000 x 320 KiB = 1.83 GiB over 20.7 GB/s
    double ms = TransferCost.millis(6_000, KV_BYTES_70B, Topology.REFERENCE_BYTES_PER_SECOND);

    assertThat(ms).isCloseTo(95, within(1e-9));
    assertThat(TransferCost.millis(6_000, "p0", "d0", Topology.uniform(), CostModel.defaults()))
        .isCloseTo(95, within(1e-9));
  }

  @Test
  void eachLinkClassHasItsOwnBandwidth() {
    CostModel model = CostModel.defaults();

    assertThat(topology.linkClass("p0", "d0")).isEqualTo(LinkClass.SAME_NODE);
    assertThat(topology.linkClass("p0", "d1")).isEqualTo(LinkClass.SAME_RACK);
    assertThat(topology.linkClass("p0", "d2")).isEqualTo(LinkClass.CROSS_RACK);
    assertThat(TransferCost.millis(6_000, "p0", "d0", topology, model)).isCloseTo(95, within(1e-9));
    assertThat(TransferCost.millis(6_000, "p0", "d1", topology, model)).isCloseTo(190, within(1e-9));
    assertThat(TransferCost.millis(6_000, "p0", "d2", topology, model)).isCloseTo(760, within(1e-9));
  }

  @Test
  void anUnplacedReplicaIsPricedAsTheSlowestLink() {
    assertThat(topology.linkClass("p0", "unknown")).isEqualTo(LinkClass.CROSS_RACK);
    assertThat(topology.linkClass("unknown", "d0")).isEqualTo(LinkClass.CROSS_RACK);
  }

  @Test
  void measuredBandwidthsReplaceTheDefaults() {
    Topology measured = Topology.newBuilder().place("p", "n1", "r1").place("d", "n2", "r1")
        .bandwidth(LinkClass.SAME_RACK, 50e9).build();

    // 1,000 tokens x 320 KiB = 327.68 MB at 50 GB/s
    assertThat(TransferCost.millis(1_000, "p", "d", measured, CostModel.defaults()))
        .isCloseTo(6.5536, within(1e-9));
  }

  @Test
  void nothingToMoveCostsNothing() {
    assertThat(TransferCost.millis(0, KV_BYTES_70B, 1)).isZero();
  }

  @Test
  void badPlacementsAndBandwidthsAreArgumentErrors() {
    Topology.Builder b = Topology.newBuilder().place("p", "n", "r");

    assertThatThrownBy(() -> b.place("p", "n2", "r")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("replicaId: p (expected: placed once");
    assertThatThrownBy(() -> b.place(" ", "n", "r")).hasMessageContaining("replicaId");
    assertThatThrownBy(() -> b.bandwidth(LinkClass.SAME_NODE, 0))
        .hasMessageContaining("bandwidth SAME_NODE: 0.0 (expected: finite and > 0");
    assertThatThrownBy(() -> b.bandwidth(LinkClass.SAME_NODE, Double.POSITIVE_INFINITY))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
