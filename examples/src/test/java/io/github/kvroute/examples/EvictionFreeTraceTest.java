package io.github.kvroute.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * The Mooncake conversation trace replayed from the command line with caches that never evict and a
 * tenth of the recorded rate (so every prefill is over before the next request of its family comes):
 * round-robin then keeps exactly the prefixes that happen to land on the replica that saw them before,
 * about 1 / replicas of the trace's reuse. The expected ratios are those of an independent replay of
 * the trace with 512-token blocks, the partial last block included.
 *
 * <p>The trace file is not part of the repository: the test reads the file named by the system
 * property {@value #TRACE_PROPERTY}, else the first {@code traces/conversation_trace.jsonl} in a
 * folder beside the checkout, and is skipped where there is none.
 */
class EvictionFreeTraceTest {
  static final String TRACE_PROPERTY = "kvroute.mooncakeTrace";

  private static Path trace() throws IOException {
    String configured = System.getProperty(TRACE_PROPERTY);
    if (configured != null) {
      return Path.of(configured);
    }
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("kvroute-sim"))) {
      dir = dir.getParent();
    }
    if (dir == null || dir.getParent() == null) {
      return Path.of("absent");
    }
    try (Stream<Path> siblings = Files.list(dir.getParent())) {
      return siblings.sorted()
          .map(d -> d.resolve("traces").resolve("conversation_trace.jsonl"))
          .filter(Files::isRegularFile).findFirst().orElse(Path.of("absent"));
    }
  }

  @ParameterizedTest(name = "{0} replicas: {1}")
  @CsvSource({"4, 0.196", "8, 0.139", "16, 0.101"})
  void roundRobinsPrefixHitRatioIsTheTracesReuseSplitAcrossReplicas(int replicas, double expected)
      throws IOException {
    Path trace = trace();
    assumeTrue(Files.isRegularFile(trace), "no Mooncake trace at " + trace);
    StringWriter out = new StringWriter();
    CommandLine cli = KvrouteSim.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(new StringWriter(), true));

    int exit = cli.execute("compare", "--trace", "mooncake:" + trace, "--policies", "round-robin",
        "--replicas", String.valueOf(replicas), "--kv-capacity-tokens", "1000000000",
        "--rate-scale", "0.1", "--load-scales", "none", "--format", "csv", "--no-report");

    assertThat(exit).isZero();
    List<String> lines = out.toString().lines().toList();
    List<String> header = List.of(lines.get(0).split(","));
    String[] row = lines.get(1).split(",");
    assertThat(row[0]).isEqualTo("round-robin");
    assertThat(Long.parseLong(row[header.indexOf("failed")])).isZero();
    assertThat(Double.parseDouble(row[header.indexOf("prefix_hit_ratio")]))
        .isCloseTo(expected, within(0.005));
  }
}
