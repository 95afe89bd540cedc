package io.github.kvroute.examples;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * One {@code kvroute-sim} command line run in process: its exit code and what it printed.
 *
 * @param exit the exit code
 * @param out standard output
 * @param err standard error
 */
record CliRun(int exit, String out, String err) {

  /** Runs {@code args} through {@link KvrouteSim#commandLine()} with captured output. */
  static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = KvrouteSim.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new CliRun(exit, out.toString(), err.toString());
  }
}
