package io.github.kvroute.examples;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code kvroute-sim advise}: the fleet advisors shown working in the simulator. */
@Command(name = "advise", mixinStandardHelpOptions = true,
    description = "Show a fleet advisor working in the simulator.",
    subcommands = {ReplicationAdviceCommand.class, AutoscaleAdviceCommand.class,
        CanaryAdviceCommand.class})
final class AdviseCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    new CommandLine(this).usage(System.out);
    return 0;
  }
}
