package io.github.kvroute.advisors;

import com.google.common.collect.ImmutableMap;
import java.util.Collection;

/**
 * The replication advice at one moment: the prefixes to hold on more than one replica, and on how
 * many. Every other prefix: one replica.
 *
 * <p>Immutable and thread-safe.
 */
public final class ReplicationAdvice {
  static final ReplicationAdvice NONE = new ReplicationAdvice(0, ImmutableMap.of());

  private final long atNanos;
  private final ImmutableMap<Long, HotPrefix> hot;

  ReplicationAdvice(long atNanos, ImmutableMap<Long, HotPrefix> hot) {
    this.atNanos = atNanos;
    this.hot = hot;
  }

  /** {@return when the advice was made, on the advisor's ticker} */
  public long atNanos() {
    return atNanos;
  }

  /**
   * Replicas {@code prefixHash} should be held on: 1 unless it is hot.
   *
   * @param prefixHash the prefix's hash
   * @return the number of replicas, at least 1
   */
  public int replicasFor(long prefixHash) {
    HotPrefix h = hot.get(prefixHash);
    return h == null ? 1 : h.replicas();
  }

  /** {@return the hot prefixes, in no particular order} */
  public Collection<HotPrefix> hotPrefixes() {
    return hot.values();
  }

  @Override
  public String toString() {
    return "ReplicationAdvice{" + hot.values() + "}";
  }
}
