package io.github.kvroute.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
 * <p>The trace file is not part of the repository: the test looks for
 * {@code conversation_trace.jsonl} in {@code ../shared/traces} beside the checkout (where the
 * development workspace keeps a copy) and is skipped where it is absent.
 */
class EvictionFreeTraceTest {
  private static Path trace() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("kvroute-sim"))) {
      dir = dir.getParent();
    }
    return dir == null ? Path.of("absent")
        : dir.resolveSibling("shared").resolve("traces").resolve("conversation_trace.jsonl");
  }

  @ParameterizedTest(name = "{0} replicas: {1}")
  @CsvSource({"4, 0.196", "8, 0.139", "16, 0.101"})
  void roundRobinsPrefixHitRatioIsTheTracesReuseSplitAcrossReplicas(int replicas, double expected) {
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
