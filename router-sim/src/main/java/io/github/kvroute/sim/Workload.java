package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.collect.ImmutableList;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalInt;

/**
 * A deterministic source of simulated requests: the same arguments always produce the same stream.
 *
 * <p>Requests come in non-decreasing {@link SimRequest#arrivalNanos() arrival} order, with unique ids,
 * and are produced lazily, so a million-request run never holds the whole stream in memory.
 *
 * <p>Thread-safety: implementations must be safe to call from several threads (each call returns its
 * own iterator; the iterators themselves are used by one thread).
 */
public interface Workload {

  /**
   * {@return the request stream}
   *
   * @param seed the source of every random choice
   * @param count how many requests to produce (fewer only if the workload is a finite trace)
   * @param rateScale multiplies arrival rates (divides every arrival time); 1 is the workload's own
   *     rate
   * @param blockSizeTokens block size of the prompts' {@link io.github.kvroute.api.PromptKey}s
   * @throws IllegalArgumentException if an argument is out of range, or the workload cannot produce
   *     prompts in that block size (see {@link #requiredBlockSizeTokens()})
   */
  Iterator<SimRequest> requests(long seed, int count, double rateScale, int blockSizeTokens);

  /** {@return one line saying what the stream looks like} */
  String description();

  /** {@return the only block size this workload can produce, when it has one (Mooncake: 512)} */
  default OptionalInt requiredBlockSizeTokens() {
    return OptionalInt.empty();
  }

  /** {@return the number of requests when the workload is finite (a trace)} */
  default OptionalInt size() {
    return OptionalInt.empty();
  }

  /**
   * A fixed list of requests, for tests and hand-built scenarios: {@code seed} is ignored,
   * {@code rateScale} divides arrival times, {@code count} takes a prefix. The prompts must already use
   * the scenario's block size.
   *
   * @param requests the requests, sorted by arrival; not empty
   * @return the workload
   * @throws IllegalArgumentException if the list is empty or not sorted by arrival
   */
  static Workload fixed(List<SimRequest> requests) {
    ImmutableList<SimRequest> list = ImmutableList.copyOf(checkNotNull(requests, "requests"));
    checkArgument(!list.isEmpty(), "requests: [] (expected: at least one request)");
    for (int i = 1; i < list.size(); i++) {
      checkArgument(list.get(i).arrivalNanos() >= list.get(i - 1).arrivalNanos(),
          "requests[%s].arrivalNanos: %s (expected: >= the previous request's %s)", i,
          list.get(i).arrivalNanos(), list.get(i - 1).arrivalNanos());
    }
    return new FixedWorkload(list);
  }
}
