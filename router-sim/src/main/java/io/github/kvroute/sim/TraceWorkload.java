package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.sim.trace.TraceRequest;
import io.github.kvroute.sim.trace.TraceSource;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.OptionalInt;

/**
 * A recorded trace as a workload: arrivals divided by the rate scale, prompts keyed by the trace's block
 * ids when it has them ({@link PromptKey#ofBlockHashes}, the partial last block included), and by ids
 * unique to each request when it has none. An output length of 0 is replayed as 1 token (the engine
 * always emits a first token). Immutable and thread-safe.
 */
final class TraceWorkload implements Workload {
  static final String MODEL = "trace-model";

  private final TraceSource trace;

  TraceWorkload(TraceSource trace) {
    this.trace = trace;
  }

  @Override
  public Iterator<SimRequest> requests(long seed, int count, double rateScale, int blockSizeTokens) {
    WorkloadArgs.check(count, rateScale, blockSizeTokens);
    OptionalInt required = trace.blockSizeTokens();
    checkArgument(required.isEmpty() || required.getAsInt() == blockSizeTokens,
        "blockSizeTokens: %s (expected: %s, the block size of %s)", blockSizeTokens,
        required.isPresent() ? required.getAsInt() : 0, trace.name());
    List<TraceRequest> requests = trace.requests(seed);
    CacheNamespace ns = CacheNamespace.of(MODEL);
    PromptBuilder unique = new PromptBuilder(blockSizeTokens, ns);
    int n = Math.min(count, requests.size());
    return new Iterator<>() {
      private int index;

      @Override
      public boolean hasNext() {
        return index < n;
      }

      @Override
      public SimRequest next() {
        if (index >= n) {
          throw new NoSuchElementException();
        }
        TraceRequest t = requests.get(index);
        PromptKey prompt = required.isPresent()
            ? PromptKey.ofBlockHashes(t.hashIds(), blockSizeTokens, t.inputTokens(), ns)
            : unique.reset().add(Shapes.key(0x7ACEL, index), t.inputTokens()).build();
        SimRequest r = SimRequest.newBuilder().id("t" + t.line())
            .arrivalNanos(Math.round(t.arrivalNanos() / rateScale)).model(MODEL).prompt(prompt)
            .outputTokens(Math.max(1, t.outputTokens())).build();
        index++;
        return r;
      }
    };
  }

  @Override
  public String description() {
    return trace.description();
  }

  @Override
  public OptionalInt requiredBlockSizeTokens() {
    return trace.blockSizeTokens();
  }

  @Override
  public OptionalInt size() {
    return OptionalInt.of(trace.size());
  }
}
