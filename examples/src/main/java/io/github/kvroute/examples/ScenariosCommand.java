package io.github.kvroute.examples;

import io.github.kvroute.sim.Scenario;
import io.github.kvroute.sim.Scenarios;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code kvroute-sim scenarios}: the named scenarios with a one-line description each: the standard
 * suite, then the failure scenarios and the request-path scenarios (both run only when named with
 * {@code compare --scenario NAME}), then the advisor scenarios, each group after a heading line.
 */
@Command(name = "scenarios", mixinStandardHelpOptions = true,
    description = "List the named scenarios, one per line with a description; the failure"
        + ", request-path and advisor scenarios follow heading lines.")
final class ScenariosCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    int width = java.util.stream.Stream.of(Scenarios.all(), Scenarios.failures(),
        Scenarios.requestPath(), Scenarios.advisors()).flatMap(List::stream)
        .mapToInt(s -> s.name().length()).max()
        .orElse(10);
    for (Scenario s : Scenarios.all()) {
      out.println(String.format("%-" + width + "s  %s", s.name(), s.description()));
    }
    out.println("# failure scenarios (run only when named: compare --scenario NAME)");
    for (Scenario s : Scenarios.failures()) {
      out.println(String.format("%-" + width + "s  %s", s.name(), s.description()));
    }
    out.println("# request-path scenarios (run only when named: compare --scenario NAME)");
    for (Scenario s : Scenarios.requestPath()) {
      out.println(String.format("%-" + width + "s  %s", s.name(), s.description()));
    }
    out.println("# advisor scenarios (run only when named: advise autoscale|canary --scenario NAME)");
    for (Scenario s : Scenarios.advisors()) {
      out.println(String.format("%-" + width + "s  %s", s.name(), s.description()));
    }
    out.flush();
    return 0;
  }
}
