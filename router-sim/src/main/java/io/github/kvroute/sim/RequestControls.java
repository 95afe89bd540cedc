package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Which request-path controls a run's routers use beyond their defaults: fleet backpressure with
 * tiers and per-tenant fairness ({@code tiers}), and hedging advice ({@code hedging}). A scenario
 * sweeping several of them ({@link Scenario#controlSweep()}) runs once per value, named
 * {@code NAME/label}, so the same traffic is compared with and without.
 *
 * @param label the variant's name suffix ({@code off}, {@code on}); empty for no variant
 * @param tiers fleet backlog limit = the scenario's TTFT objective, interactive reserve 0.2, tenant
 *     fairness with equal weights
 * @param hedging a second attempt when the hedging advice says the duplicate prefill is worth it
 */
public record RequestControls(String label, boolean tiers, boolean hedging) {
  /** The routers' defaults: no tiers, no hedging. */
  public static final RequestControls NONE = new RequestControls("", false, false);

  /**
   * Requires a label of lowercase letters, digits and dashes, or an empty one.
   *
   * @param label the variant's name suffix ({@code off}, {@code on}); empty for no variant
   * @param tiers fleet backlog limit = the scenario's TTFT objective, interactive reserve 0.2,
   *     tenant fairness with equal weights
   * @param hedging a second attempt when the hedging advice says the duplicate prefill is worth it
   */
  public RequestControls {
    checkNotNull(label, "label: null (expected: a variant name, possibly empty)");
    checkArgument(label.isEmpty() || label.matches("[a-z0-9-]+"),
        "label: %s (expected: lowercase letters, digits and dashes)", label);
  }
}
