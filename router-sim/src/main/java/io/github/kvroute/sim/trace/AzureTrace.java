package io.github.kvroute.sim.trace;

import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * The Azure LLM inference traces (Azure/AzurePublicDataset, {@code data/AzureLLMInferenceTrace_*.csv},
 * CC-BY-4.0): {@code TIMESTAMP,ContextTokens,GeneratedTokens} with a header, CRLF line endings, no
 * newline after the last row and timestamps like {@code 2023-11-16 18:15:46.6805900}.
 *
 * <h2>Design notes</h2>
 * Arrivals are relative to the first row and precise to 100 ns, so nothing is spread and the seed is
 * ignored. The traces carry no prefix information: replayed, every prompt is unique (the simulator gives
 * each its own block ids), which makes them a test of arrival burstiness and length mixes (~100x).
 *
 * <p>Immutable and thread-safe.
 */
public final class AzureTrace implements TraceSource {
  /** The header line the files start with. */
  public static final String HEADER = "TIMESTAMP,ContextTokens,GeneratedTokens";

  private static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder()
      .appendPattern("yyyy-MM-dd HH:mm:ss")
      .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
      .toFormatter(java.util.Locale.ROOT);
  private static final Splitter COMMA = Splitter.on(',');

  private final String fileName;
  private final ImmutableList<TraceRequest> requests;

  private AzureTrace(String fileName, List<TraceRequest> requests) {
    this.fileName = fileName;
    this.requests = ImmutableList.copyOf(requests);
  }

  /**
   * Reads and validates a trace file.
   *
   * @param file the trace's CSV file
   * @return the trace
   * @throws TraceFormatException if a line is malformed (the message names the file and line)
   * @throws IOException if the file cannot be read
   */
  public static AzureTrace read(Path file) throws IOException {
    checkNotNull(file, "file: null (expected: a path)");
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return read(in, String.valueOf(file.getFileName()));
    }
  }

  /**
   * Reads and validates a trace from {@code reader}; {@code fileName} is used in error messages.
   *
   * @param reader the trace's CSV text, header first
   * @param fileName the file's name, for error messages
   * @return the trace
   * @throws TraceFormatException if a line is malformed
   * @throws IOException if reading fails
   */
  public static AzureTrace read(Reader reader, String fileName) throws IOException {
    checkNotNull(reader, "reader: null (expected: non-null)");
    checkNotNull(fileName, "fileName: null (expected: a name for messages)");
    BufferedReader in = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
    String header = in.readLine();
    if (header == null || !header.strip().replace("\uFEFF", "").equals(HEADER)) {
      throw new TraceFormatException(fileName, 1, "header is " + (header == null ? "missing"
          : "\"" + header + "\""), HEADER);
    }
    List<TraceRequest> out = new ArrayList<>();
    LocalDateTime first = null;
    LocalDateTime previous = null;
    long line = 1;
    for (String text = in.readLine(); text != null; text = in.readLine()) {
      line++;
      if (text.isBlank()) {
        continue;
      }
      List<String> cols = COMMA.splitToList(text);
      if (cols.size() != 3) {
        throw new TraceFormatException(fileName, line, cols.size() + " columns in \"" + text + "\"",
            "3: " + HEADER);
      }
      LocalDateTime at;
      try {
        at = LocalDateTime.parse(cols.get(0).strip(), TIMESTAMP);
      } catch (DateTimeParseException e) {
        throw new TraceFormatException(fileName, line, "TIMESTAMP \"" + cols.get(0) + "\"",
            "yyyy-MM-dd HH:mm:ss.fffffff");
      }
      if (previous != null && at.isBefore(previous)) {
        throw new TraceFormatException(fileName, line, "TIMESTAMP " + cols.get(0)
            + " is before the previous row's", "timestamps in non-decreasing order");
      }
      int context = integer(cols.get(1), "ContextTokens", 1, fileName, line);
      int generated = integer(cols.get(2), "GeneratedTokens", 0, fileName, line);
      if (first == null) {
        first = at;
      }
      previous = at;
      long nanos = Duration.between(first, at).toNanos();
      out.add(new TraceRequest(line, nanos, context, generated, new long[0]));
    }
    if (out.isEmpty()) {
      throw new TraceFormatException(fileName, line, "no rows", "at least one row after the header");
    }
    return new AzureTrace(fileName, out);
  }

  private static int integer(String text, String column, int min, String file, long line) {
    int v;
    try {
      v = Integer.parseInt(text.strip());
    } catch (NumberFormatException e) {
      throw new TraceFormatException(file, line, column + " is \"" + text + "\"",
          "an integer >= " + min);
    }
    if (v < min) {
      throw new TraceFormatException(file, line, column + " is " + v, ">= " + min);
    }
    return v;
  }

  @Override
  public String name() {
    return "azure:" + fileName;
  }

  @Override
  public String description() {
    TraceRequest last = requests.get(requests.size() - 1);
    return "Azure LLM inference trace " + fileName + ": " + requests.size() + " requests over "
        + last.arrivalNanos() / 1_000_000_000L + " s, lengths only (no prefix sharing)";
  }

  @Override
  public int size() {
    return requests.size();
  }

  @Override
  public OptionalInt blockSizeTokens() {
    return OptionalInt.empty();
  }

  /** The requests as recorded; {@code seed} is ignored (the timestamps are precise). */
  @Override
  public List<TraceRequest> requests(long seed) {
    return requests;
  }
}
