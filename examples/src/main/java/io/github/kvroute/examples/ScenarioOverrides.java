package io.github.kvroute.examples;

import io.github.kvroute.sim.Scenario;
import io.github.kvroute.sim.ScenarioBuilder;
import picocli.CommandLine.Option;

/**
 * The options every {@code advise} command takes to vary its scenario ({@code --rate-scale},
 * {@code --requests}, {@code --seed}), and their application: a picocli mixin, so each rule is
 * written once.
 *
 * <p>Thread-safety: not thread-safe; picocli fills it once per command line.
 */
final class ScenarioOverrides {
  @Option(names = "--rate-scale", paramLabel = "X") Double rateScale;
  @Option(names = "--requests", paramLabel = "N") Integer requests;
  @Option(names = "--seed", paramLabel = "S") Long seed;

  /**
   * {@code b} with the options given on the command line, built.
   *
   * @throws UserError naming the option when the scenario refuses a value
   */
  Scenario apply(ScenarioBuilder b) {
    try {
      if (rateScale != null) {
        b.rateScale(rateScale);
      }
      if (requests != null) {
        b.requests(requests);
      }
      if (seed != null) {
        b.seed(seed);
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
  }
}
