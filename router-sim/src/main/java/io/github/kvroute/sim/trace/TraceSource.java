package io.github.kvroute.sim.trace;

import java.util.List;
import java.util.OptionalInt;

/**
 * A recorded request trace, read and validated, ready to be replayed by the simulator
 * ({@code Scenarios.fromTrace}).
 *
 * <p>Thread-safety: implementations are immutable and thread-safe.
 */
public interface TraceSource {

  /** {@return short name of the source, e.g. {@code mooncake:conversation_trace.jsonl}} */
  String name();

  /** {@return one line saying what the trace is} */
  String description();

  /** {@return requests in the trace} */
  int size();

  /**
   * {@return tokens per block of {@link TraceRequest#hashIds()} when the trace carries prefix
   * information (Mooncake: 512); empty when it does not (Azure), in which case every prompt is
   * unique}
   */
  OptionalInt blockSizeTokens();

  /**
   * The requests in file order, arrivals in nanoseconds from the first request. Where a trace's
   * timestamps are coarse, requests sharing one are spread over its interval deterministically from
   * {@code seed}; otherwise {@code seed} is ignored.
   *
   * @param seed spreads requests that share a coarse timestamp; ignored when the timestamps are
   *     exact
   * @return the requests, arrivals not decreasing
   */
  List<TraceRequest> requests(long seed);
}
