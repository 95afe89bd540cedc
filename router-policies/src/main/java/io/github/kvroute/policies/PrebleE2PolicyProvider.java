package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.time.Duration;
import java.util.Map;

/**
 * Provides {@code preble-e2} (Preble's E2 scheduler), with Preble's defaults.
 *
 * <p>Options: {@code window_seconds} (integer in [1, 86400], default 180: the load window);
 * {@code rebalance_threshold} (number in [1, 1000], default 1.5: heaviest over lightest load that
 * triggers rebalancing); {@code tpot_ms} (number in [0, 100000], default 150: time per output token
 * for replicas that do not report their decode step time); {@code rebalance} (true or false, default
 * true).
 */
public final class PrebleE2PolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return PrebleE2Policy.NAME;
  }

  @Override
  public String description() {
    return "Preble E2: exploit a long cached prefix, else explore by windowed load; rebalance at 1.5x";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    PolicyConfig c = PolicyConfig.of(config);
    int window = c.intIn("window_seconds", PrebleE2Policy.DEFAULT_WINDOW_SECONDS, 1, 86_400);
    double threshold = c.doubleIn("rebalance_threshold",
        PrebleE2Policy.DEFAULT_REBALANCE_THRESHOLD, 1, 1000);
    double tpot = c.doubleIn("tpot_ms", PrebleE2Policy.DEFAULT_TPOT_MS, 0, 100_000);
    boolean rebalance = c.bool("rebalance", true);
    return c.finish(() -> new PrebleE2Policy(Duration.ofSeconds(window), threshold, tpot, rebalance,
        environment.ticker()));
  }
}
