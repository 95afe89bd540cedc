package io.github.kvroute.examples;

import io.github.kvroute.api.RoutingPolicyRegistry;
import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * {@code kvroute-sim}: the command-line entry point of the examples.
 *
 * <p>Policies are found through {@link java.util.ServiceLoader}: kvroute's own, the examples', and
 * those in the jars or directories named by {@code --classpath} (or {@code KVROUTE_SIM_CLASSPATH}),
 * so that a host's policy jar shows in {@code policies} and runs in {@code compare}.
 */
@Command(name = "kvroute-sim", mixinStandardHelpOptions = true, version = "kvroute-sim 0.1.0",
    description = "Compare routing policies for LLM fleets.",
    subcommands = {PoliciesCommand.class, ScenariosCommand.class, CompareCommand.class,
        PlanCommand.class, AdviseCommand.class, InspectCommand.class,
        KvrouteSim.DemoCommand.class, GatewayCommand.class})
public final class KvrouteSim implements Callable<Integer> {
  /** The environment variable read when {@code --classpath} is not given. */
  static final String CLASSPATH_VARIABLE = "KVROUTE_SIM_CLASSPATH";

  @Option(names = "--classpath", paramLabel = "PATH", scope = ScopeType.INHERIT,
      description = "Jars and class directories with more policies (a host's policy jar), separated"
          + " by the platform's path separator (':' or ';'); default: $" + CLASSPATH_VARIABLE + ".")
  String classpath;

  private final UnaryOperator<String> environment;
  private final boolean terminal;
  private RoutingPolicyRegistry registry;

  private KvrouteSim(UnaryOperator<String> environment, boolean terminal) {
    this.environment = environment;
    this.terminal = terminal;
  }

  /**
   * The {@code kvroute-sim} command line: runs it and exits with its code (0 done, 2 a user error).
   *
   * @param args a subcommand and its options; {@code --help} lists them
   */
  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(run(args));
  }

  /** Runs the command line; user errors print one line on stderr and return 2. */
  static int run(String... args) {
    return commandLine().execute(args);
  }

  /**
   * The configured command line, reading the process's environment; progress is drawn as a bar only
   * when the JVM has a console (stdin and stdout on a terminal).
   */
  static CommandLine commandLine() {
    return commandLine(System::getenv, System.console() != null);
  }

  /**
   * The configured command line: user errors are one line on stderr and exit code 2.
   *
   * @param environment looks up environment variables ({@value #CLASSPATH_VARIABLE})
   * @param terminal whether stderr is a terminal: a redrawn progress bar if so, else one line per
   *     finished run
   */
  static CommandLine commandLine(UnaryOperator<String> environment, boolean terminal) {
    CommandLine cli = new CommandLine(new KvrouteSim(environment, terminal));
    cli.setParameterExceptionHandler((ex, a) -> {
      ex.getCommandLine().getErr().println("kvroute-sim: " + ex.getMessage());
      return 2;
    });
    cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      if (ex instanceof UserError) {
        commandLine.getErr().println("kvroute-sim: " + ex.getMessage());
        return 2;
      }
      throw ex;
    });
    return cli;
  }

  @Override
  public Integer call() {
    new CommandLine(this).usage(System.out);
    return 0;
  }

  boolean terminal() {
    return terminal;
  }

  /**
   * The policies this run can use: the default registry, or, with a class path, a registry loaded
   * from it and everything on the application's own class path.
   *
   * @throws UserError if an entry of the class path does not exist
   */
  synchronized RoutingPolicyRegistry registry() {
    if (registry == null) {
      String path = classpath != null ? classpath : environment.apply(CLASSPATH_VARIABLE);
      String source = classpath != null ? "--classpath" : CLASSPATH_VARIABLE;
      registry = path == null || path.isBlank() ? RoutingPolicyRegistry.defaultRegistry()
          : RoutingPolicyRegistry.load(new URLClassLoader(urls(source, path),
              KvrouteSim.class.getClassLoader()));
    }
    return registry;
  }

  private static URL[] urls(String source, String path) {
    List<URL> urls = new ArrayList<>();
    for (String entry : path.split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      Path p = Path.of(entry.trim());
      if (!Files.isRegularFile(p) && !Files.isDirectory(p)) {
        throw new UserError(source + ": " + entry + " (expected: existing jars or class directories,"
            + " separated by '" + File.pathSeparator + "')");
      }
      try {
        urls.add(p.toUri().toURL());
      } catch (MalformedURLException e) {
        throw new UserError(source + ": " + entry + " (expected: a path a URL can name)");
      }
    }
    return urls.toArray(URL[]::new);
  }

  /** Routes the cost model's worked examples and prints each decision with its cost breakdown. */
  @Command(name = "demo", mixinStandardHelpOptions = true,
      description = "Route the cost model's worked examples and explain each decision.")
  static final class DemoCommand implements Callable<Integer> {
    @Override
    public Integer call() {
      new Demo(System.out).run();
      return 0;
    }
  }
}
