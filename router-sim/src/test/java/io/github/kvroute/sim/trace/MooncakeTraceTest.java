package io.github.kvroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringReader;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MooncakeTraceTest {
  private static final String GOOD =
      "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [0, 1]}";

  static Path excerpt() throws URISyntaxException {
    return Path.of(MooncakeTraceTest.class.getResource("/traces/mooncake_conversation_300.jsonl")
        .toURI());
  }

  @Test
  void readsTheExcerpt() throws Exception {
    MooncakeTrace trace = MooncakeTrace.read(excerpt());

    assertThat(trace.size()).isEqualTo(300);
    assertThat(trace.name()).isEqualTo("mooncake:mooncake_conversation_300.jsonl");
    assertThat(trace.blockSizeTokens()).hasValue(512);
    TraceRequest first = trace.recordedRequests().get(0);
    assertThat(first.inputTokens()).isEqualTo(6_758);
    assertThat(first.outputTokens()).isEqualTo(500);
    assertThat(first.hashIds()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
    assertThat(first.line()).isEqualTo(1);
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        Arguments.of("{\"timestamp\": 0, \"input_length\": ",
            "t.jsonl:2: malformed JSON: "),
        Arguments.of("[1, 2]",
            "t.jsonl:2: not a JSON object (expected: one JSON object per line)"),
        Arguments.of("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1}",
            "t.jsonl:2: missing field \"hash_ids\" (expected: \"timestamp\", \"input_length\","
                + " \"output_length\" and \"hash_ids\")"),
        Arguments.of("{\"timestamp\": 0, \"input_length\": -5, \"output_length\": 1, \"hash_ids\": []}",
            "t.jsonl:2: input_length is -5 (expected: >= 1)"),
        Arguments.of("{\"timestamp\": 0, \"input_length\": 5, \"output_length\": -1, \"hash_ids\": [1]}",
            "t.jsonl:2: output_length is -1 (expected: >= 0)"),
        Arguments.of("{\"timestamp\": \"soon\", \"input_length\": 5, \"output_length\": 1,"
                + " \"hash_ids\": [1]}",
            "t.jsonl:2: timestamp is \"soon\" (expected: an integer >= 0)"),
        Arguments.of("{\"timestamp\": 0, \"input_length\": 6758, \"output_length\": 1,"
                + " \"hash_ids\": [0, 1, 2]}",
            "t.jsonl:2: hash_ids has 3 entries (expected: ceil(6758/512) = 14)"),
        Arguments.of("{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1,"
                + " \"hash_ids\": [\"a\"]}",
            "t.jsonl:2: hash_ids[0] is \"a\" (expected: an integer)"),
        Arguments.of("{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1,"
                + " \"hash_ids\": 7}",
            "t.jsonl:2: hash_ids is 7 (expected: an array of integers)"));
  }

  @ParameterizedTest
  @MethodSource("malformed")
  void malformedLineIsReportedWithFileAndLine(String line, String message) {
    assertThatThrownBy(() -> MooncakeTrace.read(new StringReader(GOOD + "\n" + line + "\n"),
        "t.jsonl"))
        .isInstanceOf(TraceFormatException.class)
        .hasMessageStartingWith(message)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").contains("(expected: "))
        .satisfies(e -> assertThat(((TraceFormatException) e).line()).isEqualTo(2));
  }

  @Test
  void unsortedTimestampIsReported() {
    String later = GOOD.replace("\"timestamp\": 0", "\"timestamp\": 2000");
    String earlier = GOOD.replace("\"timestamp\": 0", "\"timestamp\": 1000");
    assertThatThrownBy(() -> MooncakeTrace.read(new StringReader(later + "\n" + earlier), "t.jsonl"))
        .isInstanceOf(TraceFormatException.class)
        .hasMessage("t.jsonl:2: timestamp 1000 is before the previous request's 2000"
            + " (expected: timestamps in non-decreasing order)");
  }

  @Test
  void fileNameIsTheOneInMessages(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("conversation_trace.jsonl");
    Files.writeString(file, GOOD + "\n" + GOOD + "\n"
        + "{\"timestamp\": 0, \"input_length\": 6758, \"output_length\": 500, \"hash_ids\": [0, 1, 2]}");
    assertThatThrownBy(() -> MooncakeTrace.read(file))
        .hasMessage("conversation_trace.jsonl:3: hash_ids has 3 entries (expected: ceil(6758/512) = 14)");
  }

  @Test
  void crlfLineEndingsAndMissingFinalNewlineAndBlankLinesAreFine() throws IOException {
    MooncakeTrace trace = MooncakeTrace.read(
        new StringReader(GOOD + "\r\n\r\n" + GOOD.replace(": 0,", ": 3000,")), "t.jsonl");
    assertThat(trace.size()).isEqualTo(2);
    assertThat(trace.recordedRequests().get(1).line()).isEqualTo(3);
    assertThat(trace.recordedRequests().get(1).arrivalNanos()).isEqualTo(3_000_000_000L);
  }

  @Test
  void emptyTraceIsAnError() {
    assertThatThrownBy(() -> MooncakeTrace.read(new StringReader("\n"), "t.jsonl"))
        .isInstanceOf(TraceFormatException.class)
        .hasMessage("t.jsonl:1: no requests (expected: at least one JSON line)");
  }

  @Property(tries = 50)
  void spreadingStaysInsideEachBucketAndKeepsFileOrder(@ForAll long seed) throws Exception {
    MooncakeTrace trace = MooncakeTrace.read(excerpt());
    List<TraceRequest> recorded = trace.recordedRequests();
    List<TraceRequest> spread = trace.requests(seed);

    assertThat(spread).hasSize(recorded.size());
    for (int i = 0; i < spread.size(); i++) {
      long t = recorded.get(i).arrivalNanos();
      long next = t + MooncakeTrace.BUCKET_MILLIS * 1_000_000L;
      for (int j = i + 1; j < recorded.size(); j++) {
        if (recorded.get(j).arrivalNanos() > t) {
          next = recorded.get(j).arrivalNanos();
          break;
        }
      }
      assertThat(spread.get(i).arrivalNanos()).isBetween(t, next - 1);
      assertThat(spread.get(i).line()).isEqualTo(recorded.get(i).line());
      if (i > 0) {
        assertThat(spread.get(i).arrivalNanos()).isGreaterThanOrEqualTo(spread.get(i - 1).arrivalNanos());
      }
    }
  }

  @Test
  void spreadingIsDeterministicPerSeed() throws Exception {
    MooncakeTrace trace = MooncakeTrace.read(excerpt());
    long[] a = arrivals(trace.requests(7));
    long[] b = arrivals(trace.requests(7));
    long[] c = arrivals(trace.requests(8));
    assertThat(a).isEqualTo(b).isNotEqualTo(c);
    // 90% of gaps are zero in the recording; after spreading, almost none are
    long zeroGaps = 0;
    for (int i = 1; i < a.length; i++) {
      zeroGaps += a[i] == a[i - 1] ? 1 : 0;
    }
    assertThat(zeroGaps).isZero();
  }

  private static long[] arrivals(List<TraceRequest> requests) {
    return requests.stream().mapToLong(TraceRequest::arrivalNanos).toArray();
  }
}
