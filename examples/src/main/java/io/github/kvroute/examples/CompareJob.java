package io.github.kvroute.examples;

import io.github.kvroute.sim.Scenario;
import io.github.kvroute.sim.SimulationResult;

/**
 * One simulation {@code compare} runs: a policy on one section of the scenario at one load scale,
 * and, once run, its result.
 *
 * <p>Thread-safety: the result is written once by the thread that ran it and read after the runs
 * were joined; everything else is final.
 */
final class CompareJob {
  final int section;
  final String policy;
  final double scale;
  final Scenario scenario;
  /** Appended to the policy in output rows ({@code +oracle}); null for an ordinary run. */
  final String label;
  /** {@code POLICY[+oracle] xSCALE on SCENARIO}, for progress. */
  final String description;
  volatile SimulationResult result;

  CompareJob(int section, String policy, double scale, Scenario scenario) {
    this(section, policy, scale, scenario, null);
  }

  CompareJob(int section, String policy, double scale, Scenario scenario, String label) {
    this.section = section;
    this.policy = policy;
    this.scale = scale;
    this.scenario = scenario;
    this.label = label;
    this.description =
        policy + (label == null ? "" : label) + " x" + scale + " on " + scenario.name();
  }

  /** {@return the output row this run belongs to: the policy, or its oracle} */
  String row() {
    return label == null ? policy : policy + label;
  }
}
