package io.github.kvroute.examples;

import io.github.kvroute.api.RoutingPolicyProvider;
import io.github.kvroute.api.RoutingPolicyRegistry;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code kvroute-sim policies}: the registered policy names, one per line. */
@Command(name = "policies", mixinStandardHelpOptions = true,
    description = "List registered routing policies (found through ServiceLoader, --classpath"
        + " included), one per line.")
final class PoliciesCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @ParentCommand
  KvrouteSim parent;

  @Option(names = {"-v", "--verbose"}, description = "Also print each policy's description.")
  boolean verbose;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    RoutingPolicyRegistry registry = parent.registry();
    for (RoutingPolicyProvider p : registry.providers()) {
      out.println(verbose && !p.description().isEmpty()
          ? String.format("%-26s %s", p.policyName(), p.description()) : p.policyName());
    }
    for (String error : registry.loadErrors()) {
      spec.commandLine().getErr().println("kvroute-sim: warning: " + error);
    }
    out.flush();
    return 0;
  }
}
