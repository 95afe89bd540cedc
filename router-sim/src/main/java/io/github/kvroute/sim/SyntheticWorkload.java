package io.github.kvroute.sim;

import io.github.kvroute.api.CacheNamespace;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * A generated workload: an {@link ArrivalProcess} for when, a {@link RequestShape} for what. The seed
 * is split into independent streams for arrivals and shapes, so changing the rate scale moves the same
 * requests in time rather than drawing different ones. Immutable and thread-safe.
 */
final class SyntheticWorkload implements Workload {
  static final String MODEL = "sim-model";

  private final ArrivalProcess arrivals;
  private final RequestShape shape;

  SyntheticWorkload(ArrivalProcess arrivals, RequestShape shape) {
    this.arrivals = arrivals;
    this.shape = shape;
  }

  @Override
  public Iterator<SimRequest> requests(long seed, int count, double rateScale, int blockSizeTokens) {
    WorkloadArgs.check(count, rateScale, blockSizeTokens);
    SplittableRandom root = new SplittableRandom(seed);
    LongSupplier times = arrivals.start(root.split(), rateScale);
    SplittableRandom random = root.split();
    PromptBuilder prompts = new PromptBuilder(blockSizeTokens, CacheNamespace.of(MODEL));
    return new Iterator<>() {
      private int index;

      @Override
      public boolean hasNext() {
        return index < count;
      }

      @Override
      public SimRequest next() {
        if (index >= count) {
          throw new NoSuchElementException();
        }
        SimRequest r = shape.next(index, count, times.getAsLong(), random, prompts);
        index++;
        return r;
      }
    };
  }

  @Override
  public String description() {
    return shape.describe() + "; " + arrivals.describe();
  }
}
