package io.github.kvroute.examples;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code kvroute-sim}: the command-line entry point of the examples. */
@Command(name = "kvroute-sim", mixinStandardHelpOptions = true, version = "kvroute-sim 0.1.0",
    description = "Compare routing policies for LLM fleets.",
    subcommands = {PoliciesCommand.class, ScenariosCommand.class, CompareCommand.class,
        PlanCommand.class, AdviseCommand.class,
        KvrouteSim.DemoCommand.class})
public final class KvrouteSim implements Callable<Integer> {

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(run(args));
  }

  /** Runs the command line; user errors print one line on stderr and return 2. */
  static int run(String... args) {
    return commandLine().execute(args);
  }

  /** The configured command line: user errors are one line on stderr and exit code 2. */
  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new KvrouteSim());
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
