package io.github.kvroute.advisors;

/**
 * Subscribes to {@link HotPrefixAdvisor}'s changes of advice.
 *
 * <p>Thread-safety: called on the thread that runs {@link HotPrefixAdvisor#evaluate()}, after the
 * advisor released its lock; one call per change, in the order they were decided. A listener that
 * throws is contained: the advisor counts it and goes on.
 */
@FunctionalInterface
public interface ReplicationListener {
  /**
   * Told one change of advice.
   *
   * @param change the change
   */
  void onChange(ReplicationChange change);
}
