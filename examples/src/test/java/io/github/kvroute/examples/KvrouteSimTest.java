package io.github.kvroute.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.sim.Scenarios;
import io.github.kvroute.sim.SimulationResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** The command line as a user meets it: outputs, files, and one-line errors with exit code 2. */
class KvrouteSimTest {
  @TempDir
  Path dir;

  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    PrintStream oldErr = System.err;
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    System.setErr(new PrintStream(progress, true, StandardCharsets.UTF_8));
    try {
      CommandLine cli = KvrouteSim.commandLine(name -> null, false);
      cli.setOut(new PrintWriter(out, true));
      cli.setErr(new PrintWriter(err, true));
      int exit = cli.execute(args);
      return new Run(exit, out.toString(), err.toString());
    } finally {
      System.setErr(oldErr);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"compare", "policies", "scenarios", "demo", "plan", "advise", "inspect"})
  void everySubcommandPrintsItsHelpAndExitsZero(String subcommand) {
    Run r = run(subcommand, "--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("Usage: kvroute-sim " + subcommand).contains("--help");
  }

  @Test
  void policiesListsEveryRegisteredPolicyOnePerLine() {
    Run r = run("policies");

    assertThat(r.exit()).isZero();
    assertThat(r.out().lines().toList())
        .containsExactlyElementsOf(RoutingPolicyRegistry.defaultRegistry().policyNames())
        .contains("hybrid-cost", "round-robin", "cache-aware", "fewest-waiting");
  }

  @Test
  void scenariosListsEveryNamedScenarioWithADescription() {
    Run r = run("scenarios");

    assertThat(r.exit()).isZero();
    List<String> lines = r.out().lines().toList();
    List<io.github.kvroute.sim.Scenario> listed = new java.util.ArrayList<>(Scenarios.all());
    listed.add(null);
    listed.addAll(Scenarios.failures());
    listed.add(null);
    listed.addAll(Scenarios.requestPath());
    listed.add(null);
    listed.addAll(Scenarios.advisors());
    assertThat(lines).hasSize(listed.size());
    int headings = 0;
    for (int i = 0; i < lines.size(); i++) {
      if (listed.get(i) == null) {
        assertThat(lines.get(i)).startsWith(List.of("# failure scenarios",
            "# request-path scenarios", "# advisor scenarios").get(headings++));
        continue;
      }
      assertThat(lines.get(i)).startsWith(listed.get(i).name() + " ")
          .contains(listed.get(i).description());
    }
    assertThat(lines).anyMatch(l -> l.startsWith("replica-crash "))
        .anyMatch(l -> l.startsWith("event-gap ")).anyMatch(l -> l.startsWith("ramp-and-burst "));
  }

  @Test
  void compareWritesCsvInTheFixedColumnOrder_andTheReport() throws IOException {
    Path out = dir.resolve("report");
    Run r = run("compare", "--scenario", "mixed-sizes", "--policies", "round-robin,hybrid-cost",
        "--requests", "300", "--load-scales", "0.5,1", "--format", "csv", "--out", out.toString());

    assertThat(r.exit()).as(r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines.get(0)).isEqualTo(SimulationResult.CSV_HEADER
        + ",offered_rps,capacity_rps,capacity_bound");
    assertThat(lines).hasSize(3);
    assertThat(lines.get(1)).startsWith("round-robin,300,");
    assertThat(lines.get(2)).startsWith("hybrid-cost,300,");
    assertThat(Files.readAllLines(out.resolve("results.csv"))).isEqualTo(lines);
    for (String file : List.of("report.html", "ttft-cdf.png", "goodput-vs-load.png",
        "hit-ratio.png", "work-round-robin.png", "work-hybrid-cost.png")) {
      assertThat(out.resolve(file)).isNotEmptyFile();
    }
    assertThat(Files.readString(out.resolve("report.html"))).contains("ttft-cdf.png")
        .contains("hybrid-cost").contains("--policies round-robin,hybrid-cost");
  }

  @Test
  void theSameSeedGivesTheSameCsv_exceptTheWallClockColumns() {
    String[] args = {"compare", "--scenario", "hot-prefix", "--policies", "hybrid-cost,round-robin",
        "--requests", "400", "--format", "csv", "--no-report", "--load-scales", "none"};
    List<String> first = withoutWallClock(run(args).out());
    List<String> second = withoutWallClock(run(args).out());
    String[] other = Arrays.copyOf(args, args.length + 2);
    other[args.length] = "--seed";
    other[args.length + 1] = "7";

    assertThat(first).isEqualTo(second);
    assertThat(withoutWallClock(run(other).out())).isNotEqualTo(first);
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "vllm-kv-events", "sglang", "instrumented"})
  void theSameSeedGivesTheSameCsvUnderEveryTelemetryProfile(String profile) {
    String[] args = {"compare", "--scenario", "multi-tenant", "--policies", "hybrid-cost,kv-overlap",
        "--requests", "300", "--format", "csv", "--no-report", "--load-scales", "none",
        "--telemetry", profile, "--oracle"};

    Run first = run(args);

    assertThat(first.exit()).as(first.err()).isZero();
    assertThat(withoutWallClock(run(args).out())).isEqualTo(withoutWallClock(first.out()));
  }

  @Test
  void oracleRowsFollowEachPolicyInTableAndCsv() {
    String[] args = {"compare", "--scenario", "mixed-sizes", "--policies", "round-robin,hybrid-cost",
        "--requests", "200", "--load-scales", "none", "--no-report", "--oracle", "--format", "csv"};

    List<String> csv = run(args).out().lines().toList();
    args[args.length - 1] = "table";
    String table = run(args).out();

    assertThat(csv).hasSize(5);
    assertThat(csv.subList(1, 5)).extracting(l -> l.substring(0, l.indexOf(',')))
        .containsExactly("round-robin", "round-robin+oracle", "hybrid-cost", "hybrid-cost+oracle");
    // the default engine, llama3-8b-h100, computes a prompt token's linear layers in 0.0325 ms
    assertThat(table).contains("hybrid-cost+oracle ").contains("round-robin+oracle ")
        .contains("hybrid-cost prefill ms/token: true 0.0325, prior ")
        .contains("hybrid-cost+oracle prefill ms/token: true 0.0325, prior 0.0325");
  }

  @Test
  void theOracleAloneKnowsTheEngine_andTelemetryChangesWhatHybridCostSees() {
    String[] vllm = {"compare", "--scenario", "mixed-sizes", "--policies", "hybrid-cost",
        "--requests", "300", "--load-scales", "none", "--no-report", "--format", "csv"};
    String[] instrumented = Arrays.copyOf(vllm, vllm.length + 2);
    instrumented[vllm.length] = "--telemetry";
    instrumented[vllm.length + 1] = "instrumented";

    assertThat(withoutWallClock(run(vllm).out()))
        .isNotEqualTo(withoutWallClock(run(instrumented).out()));
  }

  @Test
  void deadlinesLetAdmissionShedWhatWouldBeLateAndEveryRequestIsStillAccountedFor() {
    String[] untold = {"compare", "--scenario", "mixed-sizes", "--policies", "round-robin",
        "--requests", "300", "--rate-scale", "3", "--load-scales", "none", "--no-report",
        "--format", "csv"};
    String[] told = Arrays.copyOf(untold, untold.length + 1);
    told[untold.length] = "--deadlines";

    List<String> without = run(untold).out().lines().toList();
    Run withRun = run(told);
    List<String> with = withRun.out().lines().toList();

    assertThat(withRun.exit()).as(withRun.err()).isZero();
    List<String> header = Arrays.asList(without.get(0).split(","));
    String[] before = without.get(1).split(",");
    String[] after = with.get(1).split(",");
    int offered = header.indexOf("offered");
    int completed = header.indexOf("completed");
    int rejected = header.indexOf("rejected");
    int failed = header.indexOf("failed");
    assertThat(Long.parseLong(before[rejected])).isZero();
    assertThat(Long.parseLong(after[rejected])).isPositive();
    assertThat(Long.parseLong(after[completed]) + Long.parseLong(after[rejected])
        + Long.parseLong(after[failed])).isEqualTo(Long.parseLong(after[offered]));
  }

  /** The CSV without its decision_us_* columns (found by name in the header). */
  private static List<String> withoutWallClock(String csv) {
    List<String> lines = csv.lines().toList();
    List<String> header = List.of(lines.get(0).split(",", -1));
    return lines.stream().map(l -> {
      String[] cells = l.split(",", -1);
      StringBuilder kept = new StringBuilder();
      for (int i = 0; i < cells.length; i++) {
        if (!header.get(i).startsWith("decision_us")) {
          kept.append(cells[i]).append(',');
        }
      }
      return kept.toString();
    }).toList();
  }

  @Test
  void aSweepPrintsEachPolicysCapacityAsASecondTable_andAsColumnsAfterTheFixedOnes() {
    String[] args = {"compare", "--scenario", "mixed-sizes", "--policies", "round-robin,hybrid-cost",
        "--requests", "300", "--load-scales", "0.5,2,8", "--no-report"};
    Run table = run(args);
    String[] csvArgs = Arrays.copyOf(args, args.length + 2);
    csvArgs[args.length] = "--format";
    csvArgs[args.length + 1] = "csv";
    List<String> csv = run(csvArgs).out().lines().toList();

    assertThat(table.exit()).as(table.err()).isZero();
    assertThat(table.out()).contains("capacity_rps: highest offered req/s with SLO attainment >= 90%")
        .containsPattern("(?m)^policy +capacity_rps +att@x0\\.5 +att@x1 +att@x2 +att@x8$")
        .containsPattern("(?m)^round-robin +[<>=]*\\d+\\.\\d{3}( +\\d\\.\\d{3}){4}$");
    List<String> header = List.of(csv.get(0).split(","));
    assertThat(header.subList(0, 17)).containsExactly(SimulationResult.CSV_HEADER.split(","));
    assertThat(header.subList(17, 20)).containsExactly("offered_rps", "capacity_rps", "capacity_bound");
    String[] rr = csv.get(1).split(",", -1);
    assertThat(rr[0]).isEqualTo("round-robin");
    assertThat(Double.parseDouble(rr[18])).isPositive();
    assertThat(rr[19]).isIn("=", ">=", "<");
    assertThat(table.out()).contains(rr[19].equals("=") ? rr[18] : rr[19] + rr[18]);
  }

  @Test
  void theOraclesRunsAreASweepOfTheirOwn_neverPartOfThePolicysCapacity() {
    String[] args = {"compare", "--scenario", "mixed-sizes", "--policies", "hybrid-cost",
        "--requests", "300", "--load-scales", "1,8", "--no-report", "--format", "csv"};
    String[] withOracle = Arrays.copyOf(args, args.length + 1);
    withOracle[args.length] = "--oracle";

    List<String> plain = run(args).out().lines().toList();
    List<String> oracle = run(withOracle).out().lines().toList();

    assertThat(oracle).hasSize(3);
    assertThat(capacityColumns(oracle.get(1))).isEqualTo(capacityColumns(plain.get(1)))
        .doesNotEndWith(",,");
    assertThat(oracle.get(1)).startsWith("hybrid-cost,");
    assertThat(oracle.get(1)).as("the oracle differs at x1, so its run in the sweep would show")
        .isNotEqualTo(oracle.get(2).replaceFirst("^hybrid-cost\\+oracle", "hybrid-cost"));
    // the oracle's own capacity, from its own runs at x1 and x8
    assertThat(oracle.get(2)).startsWith("hybrid-cost+oracle,").doesNotEndWith(",,");
    assertThat(Double.parseDouble(oracle.get(2).split(",", -1)[18])).isPositive();
  }

  @Test
  void bisectionPlacesTheCapacityInsideTheSweepsBracket_withoutChangingTheRunsShown() {
    String[] coarse = {"compare", "--scenario", "mixed-sizes", "--policies", "round-robin",
        "--requests", "300", "--load-scales", "1,4", "--no-report", "--format", "csv",
        "--capacity-steps", "0"};
    String[] bisected = coarse.clone();
    bisected[bisected.length - 1] = "3";

    String[] before = run(coarse).out().lines().toList().get(1).split(",", -1);
    String[] after = run(bisected).out().lines().toList().get(1).split(",", -1);

    assertThat(before[19]).as("the sweep brackets round-robin's capacity").isEqualTo("=");
    assertThat(after[19]).isEqualTo("=");
    // the x1 run itself is the same, but for its decision times (wall clock)
    assertThat(Arrays.copyOf(after, 15)).containsExactly(Arrays.copyOf(before, 15));
    assertThat(after[17]).isEqualTo(before[17]);
    double offeredAtX1 = Double.parseDouble(before[17]);
    double capacity = Double.parseDouble(after[18]);
    assertThat(capacity).isBetween(offeredAtX1 * 0.99, offeredAtX1 * 4 * 1.01)
        .isNotEqualTo(Double.parseDouble(before[18]));
  }

  private static String capacityColumns(String row) {
    String[] cells = row.split(",", -1);
    return cells[cells.length - 2] + "," + cells[cells.length - 1];
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "compare --policies nope --no-report | --policies: nope (expected:",
      "compare --scenario nope --no-report | --scenario: nope (expected: one of",
      "compare --format xml --no-report | --format: xml (expected: table or csv)",
      "compare --trace nowhere:x --no-report | --trace: nowhere:x (expected: mooncake:PATH or azure:PATH)",
      "compare --trace mooncake:/no/such/file.jsonl --no-report | no such file",
      "compare --replicas 0 --no-report | replicas: 0 (expected:",
      "compare --engine nope --no-report | --engine: nope (expected: one of [llama3-8b-h100, llama3-70b-tp4-h100])",
      "compare --kv-capacity-tokens 0 --no-report | --kv-capacity-tokens: 0 (expected: >= 1)",
      "compare --load-scales 0,x --no-report | --load-scales: 0 (expected:",
      "compare --capacity-steps -1 --no-report | --capacity-steps: -1 (expected: >= 0)",
      "compare --requests many | Invalid value for option '--requests'",
      "compare --telemetry prometheus --no-report | --telemetry: prometheus (expected: one of [vllm, vllm-kv-events, sglang, instrumented])",
      "compare --prior-error 0.5 --no-report | --prior-error: 0.5 (expected: a finite factor >= 1)",
      "compare --policies round-robin --option hybrid-cost.risk_weight=2 | --option: hybrid-cost.risk_weight=2 (expected: a policy among",
      "compare --policies hybrid-cost --option risk_weight | --option: risk_weight (expected: POLICY.KEY=VALUE)",
      "compare --policies hybrid-cost --option hybrid-cost.risk_weight=900 --no-report | risk_weight: 900 (expected: a number in [0, 100])",
      "nonsense | Unmatched argument",
  })
  void badArgumentsAreOneClearLineAndExitCode2(String args, String expected) {
    Run r = run(args.trim().split(" "));

    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains(expected).startsWith("kvroute-sim: ");
    assertThat(r.err().lines().count()).as(r.err()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
  }

  @Test
  void aMalformedTraceLineIsReportedWithFileAndLine() throws IOException {
    Path trace = dir.resolve("bad.jsonl");
    Files.writeString(trace, "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5,"
        + " \"hash_ids\": [1, 2]}\n{\"timestamp\": 1, \"input_length\": 600}\n");

    Run r = run("compare", "--trace", "mooncake:" + trace, "--no-report");

    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).startsWith("kvroute-sim: ").contains("bad.jsonl:2:");
    assertThat(r.err().lines().count()).isEqualTo(1);
  }
}
