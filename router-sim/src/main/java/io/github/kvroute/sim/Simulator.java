package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkNotNull;

import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyRegistry;
import io.github.kvroute.core.Router;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Runs a {@link Scenario} with a routing policy and measures what happened: the fleet simulator.
 *
 * <pre>{@code
 * Simulator sim = Simulator.create();
 * for (String policy : List.of("round-robin", "hybrid-cost")) {
 *   SimulationResult r = sim.run(Scenarios.named("multi-tenant").orElseThrow(), policy, Map.of(),
 *       ProgressListener.NONE);
 *   System.out.println(r.csvRow());
 * }
 * }</pre>
 *
 * <p>Each run builds {@link Scenario#routers()} real {@link Router}s (policy resolved by name through
 * the registry, router {@code i} seeded with {@code seed + i}, ticking in virtual time) and replays the
 * whole workload through them onto simulated replicas. A run is deterministic: the same scenario and
 * policy give the same {@link SimulationResult#csvRow()} except the two {@code decision_us} columns.
 * At its end a run checks its own accounting and throws {@link IllegalStateException} if anything does
 * not add up.
 *
 * <p>Thread-safety: thread-safe; each run is single-threaded and independent, so runs may proceed in
 * parallel on different threads.
 */
public final class Simulator {
  private final RoutingPolicyRegistry registry;

  private Simulator(RoutingPolicyRegistry registry) {
    this.registry = registry;
  }

  /**
   * {@return a simulator resolving policy names in {@link RoutingPolicyRegistry#defaultRegistry()}}
   */
  public static Simulator create() {
    return new Simulator(null);
  }

  /**
   * A simulator resolving policy names in {@code registry}.
   *
   * @param registry where policy names are resolved; not null
   * @return the simulator
   */
  public static Simulator create(RoutingPolicyRegistry registry) {
    return new Simulator(checkNotNull(registry, "registry: null (expected: non-null)"));
  }

  /**
   * Runs {@code scenario} with the policy registered as {@code policyName}.
   *
   * @param scenario the scenario run
   * @param policyName the policy's registered name
   * @param policyConfig the policy's options, parsed by its provider
   * @param progress told how far the run has got; {@link ProgressListener#NONE} to ignore
   * @return the run's result
   * @throws IllegalArgumentException if the policy is unknown or its configuration invalid, or the
   *     workload is inconsistent (unsorted arrivals, several models, another block size)
   * @throws IllegalStateException if a self-check fails at the end of the run
   */
  public SimulationResult run(Scenario scenario, String policyName, Map<String, String> policyConfig,
      ProgressListener progress) {
    checkNotNull(scenario, "scenario: null (expected: non-null)");
    checkNotNull(policyName, "policyName: null (expected: a registered policy name)");
    Map<String, String> config = Map.copyOf(checkNotNull(policyConfig, "policyConfig: null"));
    return new Simulation(scenario, byName(policyName, config), progressOrNone(progress), false)
        .run();
  }

  /**
   * {@link #run(Scenario, String, Map, ProgressListener)} with {@code probe} sampling the fleet every
   * {@link FleetProbe#intervalMillis()} of virtual time; the result is the same as without it.
   *
   * @param scenario the scenario run
   * @param policyName the policy's registered name
   * @param policyConfig the policy's options, parsed by its provider
   * @param progress told how far the run has got; {@link ProgressListener#NONE} to ignore
   * @param probe samples the fleet; its interval at least 1 ms
   * @return the run's result
   */
  public SimulationResult run(Scenario scenario, String policyName, Map<String, String> policyConfig,
      ProgressListener progress, FleetProbe probe) {
    checkNotNull(scenario, "scenario: null (expected: non-null)");
    checkNotNull(policyName, "policyName: null (expected: a registered policy name)");
    checkNotNull(probe, "probe: null (expected: non-null)");
    if (probe.intervalMillis() < 1) {
      throw new IllegalArgumentException("probe.intervalMillis: " + probe.intervalMillis()
          + " (expected: >= 1)");
    }
    Map<String, String> config = Map.copyOf(checkNotNull(policyConfig, "policyConfig: null"));
    return new Simulation(scenario, byName(policyName, config), progressOrNone(progress), false,
        probe).run();
  }

  /**
   * {@link #run(Scenario, String, Map, ProgressListener)} with no options and no progress.
   *
   * @param scenario the scenario run
   * @param policyName the policy's registered name
   * @return the run's result
   */
  public SimulationResult run(Scenario scenario, String policyName) {
    return run(scenario, policyName, Map.of(), ProgressListener.NONE);
  }

  private static ProgressListener progressOrNone(ProgressListener progress) {
    return progress == null ? ProgressListener.NONE : progress;
  }

  private Simulation.PolicyChoice byName(String name, Map<String, String> config) {
    return new Simulation.PolicyChoice() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void configure(Router.Builder b) {
        b.policy(name, config);
        if (registry != null) {
          b.registry(registry);
        }
      }
    };
  }

  /** A run with policy instances from {@code policies} (one per router), for tests in this package. */
  static Simulation.PolicyChoice instances(String name, Supplier<RoutingPolicy> policies) {
    return new Simulation.PolicyChoice() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void configure(Router.Builder b) {
        b.policy(policies.get());
      }
    };
  }
}
