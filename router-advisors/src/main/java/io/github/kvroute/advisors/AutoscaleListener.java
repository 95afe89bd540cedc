package io.github.kvroute.advisors;

/**
 * Subscribes to {@link AutoscaleAdvisor}'s changes of advice.
 *
 * <p>Thread-safety: called on the thread that runs {@link AutoscaleAdvisor#observe}, after the
 * advisor released its lock, once per change. A listener that throws is contained: the advisor counts
 * it and goes on.
 */
@FunctionalInterface
public interface AutoscaleListener {
  /**
   * Told one change of advice.
   *
   * @param advice the advice now, {@linkplain ScaleAdvice#isChange() a change}
   */
  void onChange(ScaleAdvice advice);
}
