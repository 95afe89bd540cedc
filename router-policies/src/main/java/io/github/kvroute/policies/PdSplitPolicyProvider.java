package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import io.github.kvroute.api.RoutingPolicyRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Provides {@code pd-split}, a policy per pool of a disaggregated fleet.
 *
 * <p>Options: {@code prefill} (default {@code cache-aware}) and {@code decode} (default
 * {@code power-of-two}): policy names in the router's registry other than {@code pd-split}; every
 * option {@code prefill.KEY} or {@code decode.KEY} is passed to that side's policy as {@code KEY},
 * for example {@code prefill=cache-aware, prefill.cache_threshold=0.5, decode=least-request}.
 */
public final class PdSplitPolicyProvider extends RoutingPolicyProvider {
  private static final String PREFILL = "prefill";
  private static final String DECODE = "decode";

  @Override
  public String policyName() {
    return PdSplitPolicy.NAME;
  }

  @Override
  public String description() {
    return "disaggregated fleets: one policy for the prefill pool, another for decode"
        + " (SGLang PD router; default cache-aware + power-of-two)";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    Map<String, String> own = new HashMap<>();
    Map<String, String> forPrefill = new HashMap<>();
    Map<String, String> forDecode = new HashMap<>();
    config.forEach((k, v) -> {
      if (k.startsWith(PREFILL + ".")) {
        forPrefill.put(k.substring(PREFILL.length() + 1), v);
      } else if (k.startsWith(DECODE + ".")) {
        forDecode.put(k.substring(DECODE.length() + 1), v);
      } else {
        own.put(k, v);
      }
    });
    PolicyConfig c = PolicyConfig.of(own);
    RoutingPolicyRegistry registry = environment.registry();
    Set<String> allowed = new TreeSet<>(registry.policyNames());
    allowed.remove(PdSplitPolicy.NAME);
    String prefillName = c.oneOf(PREFILL, CacheAwarePolicy.NAME, allowed);
    String decodeName = c.oneOf(DECODE, PowerOfTwoPolicy.NAME, allowed);
    ConfigOrError<String> parsed = c.finish(() -> prefillName);
    if (!parsed.isOk()) {
      return ConfigOrError.error(parsed.error());
    }
    ConfigOrError<RoutingPolicy> prefill =
        registry.newPolicy(prefillName, forPrefill, environment);
    if (!prefill.isOk()) {
      return ConfigOrError.error(PREFILL + "." + prefill.error().replace("; ", "; " + PREFILL + "."));
    }
    ConfigOrError<RoutingPolicy> decode = registry.newPolicy(decodeName, forDecode, environment);
    if (!decode.isOk()) {
      return ConfigOrError.error(DECODE + "." + decode.error().replace("; ", "; " + DECODE + "."));
    }
    return ConfigOrError.of(new PdSplitPolicy(prefill.value(), decode.value()));
  }
}
