package io.github.kvroute.sim.trace;

import static com.google.common.base.Preconditions.checkNotNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.collect.ImmutableList;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.SplittableRandom;

/**
 * The Mooncake (Kimi) request trace: JSON lines of
 * {@code {"timestamp": ms, "input_length": n, "output_length": m, "hash_ids": [...]}}, one request a
 * line, sorted by timestamp (kvcache-ai/Mooncake, {@code FAST25-release/traces/}, Apache-2.0).
 *
 * <h2>Design notes</h2>
 * {@code hash_ids} name the prompt's 512-token blocks, prefix-chained (a repeated id always has the same
 * predecessor and position), the last one possibly partial: {@code len == ceil(input_length / 512)}.
 * Timestamps are quantised to about 3 s (90% of gaps are 0), so replaying them as they are would create
 * bursts the real traffic never had. {@link #requests(long)} spreads the requests of each bucket
 * uniformly over {@code [t, next distinct t)} (3 s for the last bucket): as many uniform offsets as the
 * bucket has requests, drawn from the seed in file order and sorted, assigned in file order. The spread
 * is deterministic per seed, stays inside the bucket and preserves the file's order.
 *
 * <pre>{@code
 * TraceSource trace = MooncakeTrace.read(Path.of("conversation_trace.jsonl"));
 * Scenario s = Scenarios.fromTrace(trace);
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class MooncakeTrace implements TraceSource {
  /** Tokens per {@code hash_ids} block. */
  public static final int BLOCK_SIZE_TOKENS = 512;
  /** The timestamp quantum, and the width given to the last bucket. */
  public static final long BUCKET_MILLIS = 3_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String fileName;
  private final ImmutableList<TraceRequest> requests;
  private final long[] timestampsMillis;

  private MooncakeTrace(String fileName, List<TraceRequest> requests, long[] timestampsMillis) {
    this.fileName = fileName;
    this.requests = ImmutableList.copyOf(requests);
    this.timestampsMillis = timestampsMillis;
  }

  /**
   * Reads and validates a trace file.
   *
   * @param file the trace's JSON-lines file
   * @return the trace
   * @throws TraceFormatException if a line is malformed (the message names the file and line)
   * @throws IOException if the file cannot be read
   */
  public static MooncakeTrace read(Path file) throws IOException {
    checkNotNull(file, "file: null (expected: a path)");
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return read(in, String.valueOf(file.getFileName()));
    }
  }

  /**
   * Reads and validates a trace from {@code reader}; {@code fileName} is used in error messages.
   *
   * @param reader the trace's JSON lines
   * @param fileName the file's name, for error messages
   * @return the trace
   * @throws TraceFormatException if a line is malformed
   * @throws IOException if reading fails
   */
  public static MooncakeTrace read(Reader reader, String fileName) throws IOException {
    checkNotNull(reader, "reader: null (expected: non-null)");
    checkNotNull(fileName, "fileName: null (expected: a name for messages)");
    BufferedReader in = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
    List<TraceRequest> out = new ArrayList<>();
    long[] ts = new long[1024];
    long first = -1;
    long line = 0;
    for (String text = in.readLine(); text != null; text = in.readLine()) {
      line++;
      if (text.isBlank()) {
        continue;
      }
      Parsed p = parse(text, fileName, line);
      if (out.isEmpty()) {
        first = p.timestamp;
      } else if (p.timestamp < ts[out.size() - 1]) {
        throw new TraceFormatException(fileName, line, "timestamp " + p.timestamp
            + " is before the previous request's " + ts[out.size() - 1],
            "timestamps in non-decreasing order");
      }
      if (out.size() == ts.length) {
        ts = Arrays.copyOf(ts, ts.length * 2);
      }
      ts[out.size()] = p.timestamp;
      out.add(new TraceRequest(line, (p.timestamp - first) * 1_000_000L, p.input, p.output,
          p.hashIds));
    }
    if (out.isEmpty()) {
      throw new TraceFormatException(fileName, Math.max(1, line), "no requests",
          "at least one JSON line");
    }
    return new MooncakeTrace(fileName, out, Arrays.copyOf(ts, out.size()));
  }

  private record Parsed(long timestamp, int input, int output, long[] hashIds) {}

  private static Parsed parse(String text, String file, long line) {
    JsonNode node;
    try {
      node = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      String why = e.getOriginalMessage();
      throw new TraceFormatException(file, line, "malformed JSON: " + why.lines().findFirst().orElse(why),
          "one JSON object per line");
    }
    if (node == null || !node.isObject()) {
      throw new TraceFormatException(file, line, "not a JSON object", "one JSON object per line");
    }
    long timestamp = integer(node, "timestamp", 0, file, line);
    int input = (int) integer(node, "input_length", 1, file, line);
    int output = (int) integer(node, "output_length", 0, file, line);
    JsonNode ids = field(node, "hash_ids", file, line);
    if (!ids.isArray()) {
      throw new TraceFormatException(file, line, "hash_ids is " + ids, "an array of integers");
    }
    long expected = (input + (long) BLOCK_SIZE_TOKENS - 1) / BLOCK_SIZE_TOKENS;
    if (ids.size() != expected) {
      throw new TraceFormatException(file, line, "hash_ids has " + ids.size() + " entries",
          "ceil(" + input + "/" + BLOCK_SIZE_TOKENS + ") = " + expected);
    }
    long[] hashIds = new long[ids.size()];
    for (int i = 0; i < hashIds.length; i++) {
      JsonNode id = ids.get(i);
      if (!id.isIntegralNumber() || !id.canConvertToLong()) {
        throw new TraceFormatException(file, line, "hash_ids[" + i + "] is " + id, "an integer");
      }
      hashIds[i] = id.longValue();
    }
    return new Parsed(timestamp, input, output, hashIds);
  }

  private static JsonNode field(JsonNode node, String name, String file, long line) {
    JsonNode v = node.get(name);
    if (v == null || v.isNull()) {
      throw new TraceFormatException(file, line, "missing field \"" + name + "\"",
          "\"timestamp\", \"input_length\", \"output_length\" and \"hash_ids\"");
    }
    return v;
  }

  private static long integer(JsonNode node, String name, long min, String file, long line) {
    JsonNode v = field(node, name, file, line);
    if (!v.isIntegralNumber() || !v.canConvertToLong()
        || (!name.equals("timestamp") && !v.canConvertToInt())) {
      throw new TraceFormatException(file, line, name + " is " + v, "an integer >= " + min);
    }
    long value = v.longValue();
    if (value < min) {
      throw new TraceFormatException(file, line, name + " is " + value, ">= " + min);
    }
    return value;
  }

  @Override
  public String name() {
    return "mooncake:" + fileName;
  }

  @Override
  public String description() {
    return "Mooncake trace " + fileName + ": " + requests.size() + " requests over "
        + (timestampsMillis[timestampsMillis.length - 1] - timestampsMillis[0]) / 1000
        + " s, 512-token prefix-chained blocks";
  }

  @Override
  public int size() {
    return requests.size();
  }

  @Override
  public OptionalInt blockSizeTokens() {
    return OptionalInt.of(BLOCK_SIZE_TOKENS);
  }

  /** The requests with each timestamp bucket spread over its interval (see the class notes). */
  @Override
  public List<TraceRequest> requests(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    ImmutableList.Builder<TraceRequest> out = ImmutableList.builderWithExpectedSize(requests.size());
    long first = timestampsMillis[0];
    int n = requests.size();
    for (int i = 0; i < n; ) {
      int j = i;
      while (j < n && timestampsMillis[j] == timestampsMillis[i]) {
        j++;
      }
      long widthNanos = (j < n ? timestampsMillis[j] - timestampsMillis[i] : BUCKET_MILLIS)
          * 1_000_000L;
      long[] offsets = new long[j - i];
      for (int k = 0; k < offsets.length; k++) {
        offsets[k] = random.nextLong(widthNanos);
      }
      Arrays.sort(offsets);
      long base = (timestampsMillis[i] - first) * 1_000_000L;
      for (int k = i; k < j; k++) {
        out.add(requests.get(k).withArrivalNanos(base + offsets[k - i]));
      }
      i = j;
    }
    return out.build();
  }

  /** {@return the requests at their recorded (quantised) timestamps, unspread} */
  public List<TraceRequest> recordedRequests() {
    return requests;
  }
}
