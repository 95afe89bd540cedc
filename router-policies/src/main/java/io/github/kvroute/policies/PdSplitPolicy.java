package io.github.kvroute.policies;

import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.core.PairSelection;

/**
 * Separate policies for the two pools of a disaggregated fleet, as SGLang's PD router allows
 * ({@code --prefill-policy} and {@code --decode-policy}; its documented example pairs cache-aware
 * prefill routing with power-of-two decode routing, the defaults here). On a fleet of whole-request
 * replicas the prefill policy decides alone. See {@link PdPairs}.
 *
 * <p>Thread-safety: as thread-safe as its two policies (the registered ones are).
 */
final class PdSplitPolicy implements RoutingPolicy {
  static final String NAME = "pd-split";

  private final RoutingPolicy prefill;
  private final RoutingPolicy decode;

  PdSplitPolicy(RoutingPolicy prefill, RoutingPolicy decode) {
    this.prefill = prefill;
    this.decode = decode;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    if (context.candidates().isEmpty() && PairSelection.isDisaggregated(context)) {
      return PdPairs.split(context, prefill, decode);
    }
    return prefill.route(context);
  }
}
