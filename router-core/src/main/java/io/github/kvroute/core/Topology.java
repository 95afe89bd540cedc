package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.collect.ImmutableMap;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * Where the host's replicas sit (node and rack) and how fast each {@link LinkClass} moves KV: what a
 * disaggregated fleet's pair choice needs to price the transfer from a prefill replica to a decode
 * replica ({@link TransferCost}).
 *
 * <p>{@link #uniform()} (the router's default) knows no placement: every pair moves KV at the cost
 * model's {@linkplain CostModel#kvTransferBytesPerSecond() transfer bandwidth}, the reference link
 * (a 6,000-token move of a 70B model's 320 KiB per token in about 95 ms). With placements, a pair on
 * one node uses {@link LinkClass#SAME_NODE}'s bandwidth, one rack {@link LinkClass#SAME_RACK}'s, and
 * anything else, including a replica the host did not place, {@link LinkClass#CROSS_RACK}'s: an
 * unknown path is priced as the slowest. The default bandwidths are the reference link for
 * {@code SAME_NODE}, half of it within a rack and an eighth across racks: illustrative ratios, to be
 * replaced by measured ones ({@link Builder#bandwidth}).
 *
 * <p>Bounded by what the host places (one entry per replica id). Immutable and thread-safe.
 */
public final class Topology {
  /** The reference link: 6,000 tokens x 320 KiB moved in 95 ms (about 20.7 GB/s). */
  public static final double REFERENCE_BYTES_PER_SECOND = 6_000 * 320.0 * 1024 / 0.095;

  private static final Topology UNIFORM = new Topology(ImmutableMap.of(), null);

  /** Replica id to its place; empty for {@link #uniform()}. */
  private final ImmutableMap<String, Place> places;
  /** Bytes per second by link class; null for {@link #uniform()}. */
  private final EnumMap<LinkClass, Double> bandwidth;

  private record Place(String node, String rack) {}

  private Topology(ImmutableMap<String, Place> places, EnumMap<LinkClass, Double> bandwidth) {
    this.places = places;
    this.bandwidth = bandwidth;
  }

  /** {@return the topology with no placement: every pair at the cost model's transfer bandwidth} */
  public static Topology uniform() {
    return UNIFORM;
  }

  /**
   * {@return a builder with no placement and the default bandwidths: the reference link on a node,
   * half of it within a rack, an eighth across racks}
   */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * {@return whether this topology places nothing (every pair moves KV at the cost model's
   * bandwidth)}
   */
  public boolean isUniform() {
    return bandwidth == null;
  }

  /**
   * The class of the link from {@code prefillId} to {@code decodeId}; CROSS_RACK when unplaced.
   *
   * @param prefillId the prefill replica's id
   * @param decodeId the decode replica's id
   * @return {@code SAME_NODE}, {@code SAME_RACK} or {@code CROSS_RACK}
   */
  public LinkClass linkClass(String prefillId, String decodeId) {
    Place a = places.get(prefillId);
    Place b = places.get(decodeId);
    if (a == null || b == null) {
      return LinkClass.CROSS_RACK;
    }
    if (a.node.equals(b.node) && a.rack.equals(b.rack)) {
      return LinkClass.SAME_NODE;
    }
    return a.rack.equals(b.rack) ? LinkClass.SAME_RACK : LinkClass.CROSS_RACK;
  }

  /**
   * The bandwidth of the link from {@code prefillId} to {@code decodeId}, or {@code fallback} (the
   * cost model's) when this topology is uniform.
   *
   * @param prefillId the prefill replica's id
   * @param decodeId the decode replica's id
   * @param fallback the bandwidth of a uniform topology, in bytes per second
   * @return bytes per second
   */
  public double bytesPerSecond(String prefillId, String decodeId, double fallback) {
    return bandwidth == null ? fallback : bandwidth.get(linkClass(prefillId, decodeId));
  }

  /**
   * The configured bandwidth of {@code link}; for a uniform topology, the reference link's.
   *
   * @param link the link class
   * @return bytes per second
   */
  public double bytesPerSecond(LinkClass link) {
    checkNotNull(link, "link: null (expected: a link class)");
    return bandwidth == null ? REFERENCE_BYTES_PER_SECOND : bandwidth.get(link);
  }

  @Override
  public String toString() {
    return bandwidth == null ? "Topology{uniform}"
        : "Topology{" + places.size() + " placed, " + bandwidth + "}";
  }

  /** Builds a {@link Topology}. Not thread-safe. */
  public static final class Builder {
    private final Map<String, Place> places = new HashMap<>();
    private final EnumMap<LinkClass, Double> bandwidth = new EnumMap<>(LinkClass.class);

    private Builder() {
      bandwidth.put(LinkClass.SAME_NODE, REFERENCE_BYTES_PER_SECOND);
      bandwidth.put(LinkClass.SAME_RACK, REFERENCE_BYTES_PER_SECOND / 2);
      bandwidth.put(LinkClass.CROSS_RACK, REFERENCE_BYTES_PER_SECOND / 8);
    }

    /**
     * Places {@code replicaId} on {@code node} in {@code rack}; placing it again is an error.
     *
     * @param replicaId the replica's id; not blank
     * @param node the node's name; not blank
     * @param rack the rack's name; not blank
     * @return this builder
     */
    public Builder place(String replicaId, String node, String rack) {
      checkArgument(replicaId != null && !replicaId.isBlank(),
          "replicaId: %s (expected: a non-blank replica id)", replicaId);
      checkArgument(node != null && !node.isBlank(), "node: %s (expected: non-blank)", node);
      checkArgument(rack != null && !rack.isBlank(), "rack: %s (expected: non-blank)", rack);
      checkArgument(!places.containsKey(replicaId),
          "replicaId: %s (expected: placed once; already on %s)", replicaId, places.get(replicaId));
      places.put(replicaId, new Place(node, rack));
      return this;
    }

    /**
     * The measured KV transfer bandwidth of {@code link}, in bytes per second.
     *
     * @param link the link class
     * @param bytesPerSecond the bandwidth; finite, {@code > 0}
     * @return this builder
     */
    public Builder bandwidth(LinkClass link, double bytesPerSecond) {
      checkNotNull(link, "link: null (expected: a link class)");
      checkArgument(bytesPerSecond > 0 && !Double.isInfinite(bytesPerSecond),
          "bandwidth %s: %s (expected: finite and > 0 bytes per second)", link, bytesPerSecond);
      bandwidth.put(link, bytesPerSecond);
      return this;
    }

    /** {@return the topology; a replica not placed is priced as {@code CROSS_RACK}} */
    public Topology build() {
      return new Topology(ImmutableMap.copyOf(places), new EnumMap<>(bandwidth));
    }
  }
}
