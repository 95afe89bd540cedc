package io.github.kvroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AzureTraceTest {
  private static final String HEADER = "TIMESTAMP,ContextTokens,GeneratedTokens";

  @Test
  void readsTheConversationExcerptWithCrlfAndNoFinalNewline() throws Exception {
    AzureTrace trace = AzureTrace.read(Path.of(
        AzureTraceTest.class.getResource("/traces/azure_conv_300.csv").toURI()));

    assertThat(trace.size()).isEqualTo(300);
    assertThat(trace.blockSizeTokens()).isEmpty();
    TraceRequest first = trace.requests(1).get(0);
    TraceRequest second = trace.requests(1).get(1);
    assertThat(first.arrivalNanos()).isZero();
    assertThat(first.inputTokens()).isEqualTo(374);
    assertThat(first.outputTokens()).isEqualTo(44);
    assertThat(first.blockCount()).isZero();
    // 18:15:50.9951690 - 18:15:46.6805900
    assertThat(second.arrivalNanos()).isEqualTo(4_314_579_000L);
    assertThat(trace.requests(1)).isSameAs(trace.requests(2));
  }

  @Test
  void readsTheCodeExcerpt() throws Exception {
    AzureTrace trace = AzureTrace.read(Path.of(
        AzureTraceTest.class.getResource("/traces/azure_code_300.csv").toURI()));
    assertThat(trace.size()).isEqualTo(300);
    assertThat(trace.name()).isEqualTo("azure:azure_code_300.csv");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "2023-11-16 18:15:46.68059x0,374,44 | a.csv:3: TIMESTAMP \"2023-11-16 18:15:46.68059x0\""
          + " (expected: yyyy-MM-dd HH:mm:ss.fffffff)",
      "16/11/2023 18:15:46,374,44 | a.csv:3: TIMESTAMP \"16/11/2023 18:15:46\" (expected:"
          + " yyyy-MM-dd HH:mm:ss.fffffff)",
      "2023-11-16 18:15:47.0000000,374 | a.csv:3: 2 columns in \"2023-11-16 18:15:47.0000000,374\""
          + " (expected: 3: TIMESTAMP,ContextTokens,GeneratedTokens)",
      "2023-11-16 18:15:47.0000000,374,44,9 | a.csv:3: 4 columns in"
          + " \"2023-11-16 18:15:47.0000000,374,44,9\" (expected: 3: TIMESTAMP,ContextTokens,"
          + "GeneratedTokens)",
      "2023-11-16 18:15:47.0000000,-3,44 | a.csv:3: ContextTokens is -3 (expected: >= 1)",
      "2023-11-16 18:15:47.0000000,12,many | a.csv:3: GeneratedTokens is \"many\" (expected: an"
          + " integer >= 0)",
      "2023-11-16 18:15:40.0000000,12,3 | a.csv:3: TIMESTAMP 2023-11-16 18:15:40.0000000 is before"
          + " the previous row's (expected: timestamps in non-decreasing order)"})
  void malformedRowIsReportedWithFileAndLine(String row, String message) {
    String text = HEADER + "\r\n2023-11-16 18:15:46.6805900,374,44\r\n" + row;
    assertThatThrownBy(() -> AzureTrace.read(new StringReader(text), "a.csv"))
        .isInstanceOf(TraceFormatException.class)
        .hasMessage(message);
  }

  @Test
  void wrongHeaderIsReported() {
    assertThatThrownBy(() -> AzureTrace.read(new StringReader("time,in,out\r\n"), "a.csv"))
        .isInstanceOf(TraceFormatException.class)
        .hasMessage("a.csv:1: header is \"time,in,out\" (expected: " + HEADER + ")");
  }

  @Test
  void crlfWithoutFinalNewlineKeepsTheLastRow() throws Exception {
    String text = HEADER + "\r\n2023-11-16 18:15:46.6805900,374,44\r\n"
        + "2023-11-16 18:15:47.6805900,10,0";
    AzureTrace trace = AzureTrace.read(new StringReader(text), "a.csv");
    assertThat(trace.size()).isEqualTo(2);
    assertThat(trace.requests(0).get(1).arrivalNanos()).isEqualTo(1_000_000_000L);
    assertThat(trace.requests(0).get(1).outputTokens()).isZero();
  }
}
