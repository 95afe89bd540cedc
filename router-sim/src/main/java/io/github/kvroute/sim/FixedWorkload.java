package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.Iterators;
import java.util.Iterator;
import java.util.OptionalInt;

/** {@link Workload#fixed}: a given list, scaled in time. Immutable. */
final class FixedWorkload implements Workload {
  private final ImmutableList<SimRequest> requests;

  FixedWorkload(ImmutableList<SimRequest> requests) {
    this.requests = requests;
  }

  @Override
  public Iterator<SimRequest> requests(long seed, int count, double rateScale, int blockSizeTokens) {
    WorkloadArgs.check(count, rateScale, blockSizeTokens);
    for (SimRequest r : requests) {
      checkArgument(r.prompt().blockCount() == 0 || r.prompt().blockSizeTokens() == blockSizeTokens,
          "%s.prompt.blockSizeTokens: %s (expected: the scenario's %s)", r.id(),
          r.prompt().blockSizeTokens(), blockSizeTokens);
    }
    Iterator<SimRequest> prefix = Iterators.limit(requests.iterator(), count);
    return rateScale == 1.0 ? prefix : Iterators.transform(prefix,
        r -> r.withArrivalNanos(Math.round(r.arrivalNanos() / rateScale)));
  }

  @Override
  public String description() {
    return requests.size() + " given requests";
  }

  @Override
  public OptionalInt size() {
    return OptionalInt.of(requests.size());
  }
}
