package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import io.github.kvroute.core.CostTerm;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Provides {@code hybrid-cost}, the default policy.
 *
 * <p>Options: {@code <term>_weight} for every standard {@link CostTerm} ({@code queue_weight},
 * {@code prefill_weight}, {@code step_weight}, {@code transfer_weight}, {@code risk_weight},
 * {@code kv_pressure_weight}; each in [0, 100], default 1 except {@code risk_weight}, default 0; the
 * weights shape the ranking, never the predicted TTFT the decision carries, which keeps every term); {@code externality} ({@code all}
 * (default), {@code pollution}, {@code queueing} or {@code none}: what the placement costs other
 * requests, added to the ranking; see {@link Externalities}); {@code stale} ({@code penalize} or {@code exclude}, default
 * {@code penalize}); {@code shed_new_prefixes} ({@code true} (default) or {@code false}: whether a
 * router alone rejects a large new prefix with a deadline under a backlog; see
 * {@link NewPrefixPlacement}); {@code load_bound} ({@code 0} (off) or a factor in [1, 100], default
 * {@value LoadBound#DEFAULT_FACTOR}: a router alone skips a replica with that many times the
 * candidates' mean of its requests in flight that waits; see {@link LoadBound}); {@code saturation_ms}
 * ({@code 0} (off) or milliseconds up to an hour, default {@value PastSaturation#DEFAULT_MILLIS}:
 * once every replica waits longer (a router alone: longer than this and than the mean request's
 * predicted prefill), a router alone piles requests without a deadline onto the
 * deepest holder that waits longest, and routers sharing the fleet onto the replica they agree
 * on; see {@link PastSaturation}; and routers sharing the fleet on traffic without shared prefixes
 * send a request with a deadline where their own in-flight prompt tokens are fewest, see
 * {@link OwnLoadUnderBacklog}); {@code tie_order_ms} (milliseconds up to a day, or {@code 0} for the
 * router's whole life; default 60,000: how long a router sharing the fleet keeps its own order of the
 * replicas for breaking ties, see {@link HybridCostPolicy}); {@code stay_ratio} ({@code 0} (off) or a
 * factor in [1, 100], default {@value HolderStay#DEFAULT_RATIO}: a router alone keeps a request
 * without a deadline with its prefix's deepest holder, rather than copy the prefix, while the holder
 * ranks within that factor of the best and carries no other prefix's traffic; see {@link HolderStay}).
 *
 * <p>Deprecated aliases: {@code load_weight} for {@code transfer_weight} and {@code kv_weight} for
 * {@code kv_pressure_weight} (the terms' former names); setting both spellings is an error.
 */
public final class HybridCostPolicyProvider extends RoutingPolicyProvider {
  /**
   * The weights that are not 1 by default. The staleness risk ranks at 0: with a streaming gateway
   * this router's own sends are known exactly, and pricing other routers' traffic since a report
   * (or a report's age alone) steered requests away from the replicas that hold their prefixes, on
   * every scenario it fired on (docs/cost-model.md, "Staleness risk term"). The predicted TTFT, and
   * so admission, still counts it.
   */
  static final Map<CostTerm, Double> DEFAULT_WEIGHTS = Map.of(CostTerm.RISK, 0.0);
  /** The longest {@code tie_order_ms} short of "for the router's life" (0): a day. */
  static final long MAX_TIE_ORDER_MILLIS = 86_400_000;
  /** Former option names, still accepted. */
  private static final Map<CostTerm, String> DEPRECATED_ALIASES =
      Map.of(CostTerm.TRANSFER, "load_weight", CostTerm.KV_PRESSURE, "kv_weight");

  @Override
  public String policyName() {
    return HybridCostPolicy.NAME;
  }

  @Override
  public String description() {
    return "least predicted TTFT (queue + missing-prefix prefill + adapter/KV transfer) plus the"
        + " recompute and queueing the placement costs other requests";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    PolicyConfig c = PolicyConfig.of(config);
    Map<CostTerm, Double> weights = new EnumMap<>(CostTerm.class);
    for (CostTerm term : CostTerm.values()) {
      String key = optionName(term);
      double w = c.doubleIn(key, Double.NaN, 0, 100);
      String alias = DEPRECATED_ALIASES.get(term);
      if (alias != null) {
        double old = c.doubleIn(alias, Double.NaN, 0, 100);
        if (!Double.isNaN(old) && !Double.isNaN(w)) {
          c.addError(alias + ": " + config.get(alias) + " (expected: unset when " + key
              + " is set; it is that option's deprecated name)");
        } else if (!Double.isNaN(old)) {
          w = old;
        }
      }
      if (Double.isNaN(w)) {
        w = DEFAULT_WEIGHTS.getOrDefault(term, 1.0);
      }
      if (w != 1.0) {
        weights.put(term, w);
      }
    }
    boolean exclude = c.oneOf("stale", "penalize", Set.of("penalize", "exclude")).equals("exclude");
    HybridCostPolicy.Externality externality = HybridCostPolicy.Externality.valueOf(
        c.oneOf("externality", "all", Set.of("none", "pollution", "queueing", "all"))
            .toUpperCase(Locale.ROOT));
    boolean shed = c.bool("shed_new_prefixes", true);
    double bound = c.doubleIn("load_bound", LoadBound.DEFAULT_FACTOR, 0, 100);
    if (bound > 0 && bound < 1) {
      c.addError("load_bound: " + config.get("load_bound")
          + " (expected: 0 (off) or a number in [1, 100])");
    }
    double saturation = c.doubleIn("saturation_ms", PastSaturation.DEFAULT_MILLIS, 0, 3_600_000);
    long tieOrder = c.longIn("tie_order_ms", HybridCostPolicy.TIE_ORDER_SECONDS * 1_000, 0,
        MAX_TIE_ORDER_MILLIS);
    double stay = c.doubleIn("stay_ratio", HolderStay.DEFAULT_RATIO, 0, 100);
    if (stay > 0 && stay < 1) {
      c.addError("stay_ratio: " + config.get("stay_ratio")
          + " (expected: 0 (off) or a number in [1, 100])");
    }
    return c.finish(() -> new HybridCostPolicy(weights, exclude, externality, shed, bound,
        saturation, tieOrder, stay));
  }

  /** The weight option of {@code term}, for example {@code kv_pressure_weight}. */
  static String optionName(CostTerm term) {
    return term.termName() + "_weight";
  }
}
