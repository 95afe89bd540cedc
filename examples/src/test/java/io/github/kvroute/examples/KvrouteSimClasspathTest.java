package io.github.kvroute.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.RoutingPolicyProvider;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A host's policy jar joins {@code policies} and {@code compare} through {@code --classpath} or
 * {@code KVROUTE_SIM_CLASSPATH}; progress is a bar on a terminal and one line per run elsewhere.
 */
class KvrouteSimClasspathTest {
  private static final String HOST_POLICY = "first-candidate";
  private static final String PROVIDER_SOURCE = """
      package host;

      import io.github.kvroute.api.ConfigOrError;
      import io.github.kvroute.api.CostBreakdown;
      import io.github.kvroute.api.PolicyEnvironment;
      import io.github.kvroute.api.RoutingContext;
      import io.github.kvroute.api.RoutingDecision;
      import io.github.kvroute.api.RoutingPolicy;
      import io.github.kvroute.api.RoutingPolicyProvider;
      import java.util.Map;

      public final class FirstCandidateProvider extends RoutingPolicyProvider {
        @Override
        public String policyName() {
          return "first-candidate";
        }

        @Override
        public ConfigOrError<RoutingPolicy> newPolicy(Map<String, String> c, PolicyEnvironment e) {
          return ConfigOrError.of(new RoutingPolicy() {
            @Override
            public String name() {
              return "first-candidate";
            }

            @Override
            public RoutingDecision route(RoutingContext context) {
              return context.candidates().isEmpty() ? context.noCandidates()
                  : RoutingDecision.routed(context.candidates().get(0), CostBreakdown.empty());
            }
          });
        }
      }
      """;

  @TempDir
  static Path dir;
  private static Path hostJar;

  private record Run(int exit, String out, String err) {}

  /** Compiles the provider above against router-api and packs it with its service file. */
  @BeforeAll
  static void buildHostPolicyJar() throws IOException, URISyntaxException {
    Path src = dir.resolve("src/host/FirstCandidateProvider.java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, PROVIDER_SOURCE);
    Path classes = Files.createDirectories(dir.resolve("classes"));
    String api = Path.of(RoutingPolicyProvider.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI()).toString();
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int status = javac.run(null, null, null, "-classpath", api, "-d", classes.toString(),
        src.toString());
    assertThat(status).as("javac exit status").isZero();

    hostJar = dir.resolve("host-policy.jar");
    try (OutputStream file = Files.newOutputStream(hostJar);
        JarOutputStream jar = new JarOutputStream(file)) {
      jar.putNextEntry(new JarEntry("host/FirstCandidateProvider.class"));
      jar.write(Files.readAllBytes(classes.resolve("host/FirstCandidateProvider.class")));
      for (String inner : new String[] {"host/FirstCandidateProvider$1.class"}) {
        jar.putNextEntry(new JarEntry(inner));
        jar.write(Files.readAllBytes(classes.resolve(inner)));
      }
      jar.putNextEntry(new JarEntry("META-INF/services/" + RoutingPolicyProvider.class.getName()));
      jar.write("host.FirstCandidateProvider\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  private static Run run(Map<String, String> env, boolean terminal, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = KvrouteSim.commandLine(env::get, terminal);
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private static Run run(String... args) {
    return run(Map.of(), false, args);
  }

  @Test
  void withoutAClassPathTheHostPolicyIsNotThere() {
    Run r = run("policies");

    assertThat(r.exit()).isZero();
    assertThat(r.out().lines()).contains("hybrid-cost").doesNotContain(HOST_POLICY);
  }

  @Test
  void classpathAddsTheHostPolicyToPolicies_besideTheBuiltInOnes() {
    Run before = run("policies");
    Run r = run("--classpath", hostJar.toString(), "policies");

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out().lines().toList()).contains(HOST_POLICY)
        .containsAll(before.out().lines().toList())
        .hasSize(before.out().lines().toList().size() + 1);
  }

  @Test
  void theEnvironmentVariableWorksLikeTheOption_andTheOptionWins() {
    Run fromEnv = run(Map.of(KvrouteSim.CLASSPATH_VARIABLE, hostJar.toString()), false, "policies");
    Run optionWins = run(Map.of(KvrouteSim.CLASSPATH_VARIABLE, "/no/such.jar"), false,
        "--classpath", hostJar.toString(), "policies");

    assertThat(fromEnv.out().lines()).contains(HOST_POLICY);
    assertThat(optionWins.exit()).as(optionWins.err()).isZero();
    assertThat(optionWins.out().lines()).contains(HOST_POLICY);
  }

  @Test
  void compareRunsTheHostPolicy_withTheOptionAfterTheSubcommandToo() {
    Run r = run("compare", "--classpath", hostJar.toString(), "--scenario", "mixed-sizes",
        "--policies", HOST_POLICY + ",round-robin", "--requests", "200", "--load-scales", "none",
        "--no-report", "--format", "csv");

    assertThat(r.exit()).as(r.err()).isZero();
    List<String> rows = r.out().lines().toList();
    assertThat(rows).hasSize(3);
    assertThat(rows.get(1)).startsWith(HOST_POLICY + ",200,");
    assertThat(rows.get(2)).startsWith("round-robin,200,");
  }

  @Test
  void aMissingClassPathEntryIsOneClearLine() {
    String path = hostJar + File.pathSeparator + "/no/such/policy.jar";
    Run option = run("--classpath", path, "policies");
    Run env = run(Map.of(KvrouteSim.CLASSPATH_VARIABLE, "/no/such/policy.jar"), false, "policies");

    assertThat(option.exit()).isEqualTo(2);
    assertThat(option.err()).isEqualTo("kvroute-sim: --classpath: /no/such/policy.jar (expected:"
        + " existing jars or class directories, separated by '" + File.pathSeparator + "')"
        + System.lineSeparator());
    assertThat(env.exit()).isEqualTo(2);
    assertThat(env.err()).startsWith("kvroute-sim: " + KvrouteSim.CLASSPATH_VARIABLE
        + ": /no/such/policy.jar (expected:");
    assertThat(option.out()).isEmpty();
  }

  @Test
  void offATerminalEachFinishedRunIsOneLine_andNoCarriageReturn() {
    Run r = run(Map.of(), false, "compare", "--scenario", "mixed-sizes", "--policies",
        "round-robin,hybrid-cost", "--requests", "150", "--load-scales", "0.5,1", "--no-report",
        "--threads", "2");

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).doesNotContain("\r");
    List<String> lines = r.err().lines().toList();
    assertThat(lines).hasSize(4);
    for (int i = 0; i < 4; i++) {
      assertThat(lines.get(i)).startsWith("kvroute-sim: run " + (i + 1) + "/4 done: ")
          .endsWith(" on mixed-sizes");
    }
    assertThat(lines).anyMatch(l -> l.endsWith("done: hybrid-cost x0.5 on mixed-sizes"))
        .anyMatch(l -> l.endsWith("done: round-robin x1.0 on mixed-sizes"));
  }

  @Test
  void onATerminalTheBarIsRedrawnInPlace_andCleared() {
    Run r = run(Map.of(), true, "compare", "--scenario", "mixed-sizes", "--policies",
        "round-robin", "--requests", "150", "--load-scales", "none", "--no-report");

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err()).contains("\r[").contains("100%  1/1 runs").doesNotContain("done:")
        .endsWith("\r").doesNotContain("\n");
  }

  @Test
  void everyCommandHasHelp_includingTheClassPathOption() {
    for (String command : new String[] {"compare", "policies"}) {
      Run r = run(command, "--help");
      assertThat(r.exit()).isZero();
      assertThat(r.out()).contains("--classpath=PATH").contains(KvrouteSim.CLASSPATH_VARIABLE);
    }
    Run root = run("--help");
    assertThat(root.exit()).isZero();
    assertThat(root.out()).contains("Usage: kvroute-sim").contains("--classpath=PATH")
        .contains("compare").contains("policies").contains("scenarios").contains("demo");
  }
}
