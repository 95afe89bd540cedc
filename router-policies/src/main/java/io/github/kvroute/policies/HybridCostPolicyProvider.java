package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Provides {@code hybrid-cost}, the default policy.
 *
 * <p>Options: {@code queue_weight}, {@code prefill_weight}, {@code step_weight}, {@code load_weight},
 * {@code risk_weight}, {@code kv_weight} (each in [0, 100], default 1: minimise predicted TTFT);
 * {@code externality} ({@code pollution} (default), {@code queueing}, {@code all} or {@code none}: what
 * the placement costs other requests, added to the ranking); {@code stale} ({@code penalize} or
 * {@code exclude}, default {@code penalize}).
 */
public final class HybridCostPolicyProvider extends RoutingPolicyProvider {
  private static final List<String> TERMS =
      List.of("queue", "prefill", "step", "load", "risk", "kv");

  @Override
  public String policyName() {
    return HybridCostPolicy.NAME;
  }

  @Override
  public String description() {
    return "least predicted TTFT: queue + missing-prefix prefill + adapter/KV load + staleness risk";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    PolicyConfig c = PolicyConfig.of(config);
    Map<String, Double> weights = new HashMap<>();
    for (String term : TERMS) {
      double w = c.doubleIn(term + "_weight", 1.0, 0, 100);
      if (w != 1.0) {
        weights.put(term, w);
      }
    }
    boolean exclude = c.oneOf("stale", "penalize", Set.of("penalize", "exclude")).equals("exclude");
    HybridCostPolicy.Externality externality = HybridCostPolicy.Externality.valueOf(
        c.oneOf("externality", "pollution", Set.of("none", "pollution", "queueing", "all"))
            .toUpperCase(Locale.ROOT));
    return c.finish(() -> new HybridCostPolicy(weights, exclude, externality));
  }
}
