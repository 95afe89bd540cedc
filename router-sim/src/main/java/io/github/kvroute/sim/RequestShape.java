package io.github.kvroute.sim;

import java.util.SplittableRandom;

/**
 * What each request of a synthetic workload looks like: its prompt's segments, its output length and
 * what the router may know about it. Implementations are immutable and thread-safe; the random source
 * and prompt builder belong to one stream.
 */
interface RequestShape {
  /**
   * Request {@code index} of {@code count}, arriving at {@code arrivalNanos}.
   *
   * @param prompts a builder in the run's block size, to {@link PromptBuilder#reset()} and fill
   */
  SimRequest next(int index, int count, long arrivalNanos, SplittableRandom random,
      PromptBuilder prompts);

  String describe();
}
