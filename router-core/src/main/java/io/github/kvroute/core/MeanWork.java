package io.github.kvroute.core;

import com.google.common.util.concurrent.AtomicDouble;

/**
 * The mean predicted prefill work of routed requests, an exponentially weighted average
 * ({@value #ALPHA} per request): the unit in which a replica that reports only a waiting count gets a
 * queue, and in which the staleness risk prices unseen requests. Until the first request it is the
 * cost model's prefill of a 512-token prompt.
 *
 * <p>Written by the decision pipeline, read by the pipeline and the fleet.
 *
 * <p>Thread-safety: thread-safe; {@link #record} is an atomic read-modify-write, so concurrent
 * decisions never lose each other's samples.
 */
final class MeanWork {
  static final double ALPHA = 0.05;
  private static final int INITIAL_PROMPT_TOKENS = 512;

  private final double initialMillis;
  private final AtomicDouble mean = new AtomicDouble(Double.NaN);

  MeanWork(CostModel costModel) {
    this.initialMillis = costModel.prefillOverheadMillis()
        + INITIAL_PROMPT_TOKENS * costModel.prefillMillisPerToken();
  }

  double millis() {
    double m = mean.get();
    return Double.isNaN(m) ? initialMillis : m;
  }

  /**
   * Adds one routed request's predicted prefill work. The compare-and-set loop that
   * {@code getAndUpdate} runs, written out: its lambda captured {@code workMillis} and so was
   * allocated on every decision.
   */
  void record(double workMillis) {
    double m;
    do {
      m = mean.get();
    } while (!mean.compareAndSet(m, Double.isNaN(m) ? workMillis : m + ALPHA * (workMillis - m)));
  }
}
