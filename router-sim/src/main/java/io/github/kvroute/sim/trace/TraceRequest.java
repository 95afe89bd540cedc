package io.github.kvroute.sim.trace;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One request of a trace: when it arrived (nanoseconds from the trace's first request), how long its
 * prompt and output were, and (Mooncake) the prefix-chained ids of its prompt's blocks.
 *
 * <p>Immutable and thread-safe.
 */
public final class TraceRequest {
  private final long line;
  private final long arrivalNanos;
  private final int inputTokens;
  private final int outputTokens;
  private final long[] hashIds;

  /**
   * @param line the 1-based line of the trace file it came from
   * @param arrivalNanos nanoseconds from the trace's first request; {@code >= 0}
   * @param inputTokens the prompt's length in tokens; {@code >= 1}
   * @param outputTokens the output's length in tokens; {@code >= 0}
   * @param hashIds block ids, possibly empty when the trace has no prefix information
   * @throws IllegalArgumentException if a value is negative
   */
  public TraceRequest(long line, long arrivalNanos, int inputTokens, int outputTokens,
      long[] hashIds) {
    checkArgument(line >= 1, "line: %s (expected: >= 1)", line);
    checkArgument(arrivalNanos >= 0, "arrivalNanos: %s (expected: >= 0)", arrivalNanos);
    checkArgument(inputTokens >= 1, "inputTokens: %s (expected: >= 1)", inputTokens);
    checkArgument(outputTokens >= 0, "outputTokens: %s (expected: >= 0)", outputTokens);
    this.line = line;
    this.arrivalNanos = arrivalNanos;
    this.inputTokens = inputTokens;
    this.outputTokens = outputTokens;
    this.hashIds = checkNotNull(hashIds, "hashIds: null (expected: an array)").clone();
  }

  TraceRequest withArrivalNanos(long nanos) {
    return new TraceRequest(line, nanos, inputTokens, outputTokens, hashIds);
  }

  /** {@return the 1-based line of the trace file} */
  public long line() {
    return line;
  }

  /** {@return when the request arrived, in nanoseconds from the trace's first request} */
  public long arrivalNanos() {
    return arrivalNanos;
  }

  /** {@return the prompt's length in tokens (at least 1)} */
  public int inputTokens() {
    return inputTokens;
  }

  /** {@return the output's length in tokens} */
  public int outputTokens() {
    return outputTokens;
  }

  /** {@return number of block ids (0 when the trace has no prefix information)} */
  public int blockCount() {
    return hashIds.length;
  }

  /** {@return a copy of the block ids} */
  public long[] hashIds() {
    return hashIds.clone();
  }

  @Override
  public String toString() {
    return "TraceRequest{line " + line + " @" + arrivalNanos / 1_000_000 + "ms, in=" + inputTokens
        + ", out=" + outputTokens + ", blocks=" + hashIds.length + "}";
  }
}
