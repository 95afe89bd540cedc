package io.github.kvroute.policies;

import io.github.kvroute.api.ConfigOrError;
import io.github.kvroute.api.PolicyConfig;
import io.github.kvroute.api.PolicyEnvironment;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.RoutingPolicyProvider;
import java.time.Duration;
import java.util.Map;

/**
 * Provides {@code session-affinity}.
 *
 * <p>Options: {@code ttl_seconds} (integer in [1, 2592000], default 7200: a session is forgotten this
 * long after its last turn, vLLM Router's sticky TTL); {@code max_sessions} (integer in
 * [1, 1000000000], default 1000000: the most sessions remembered; the least recently used go first).
 */
public final class SessionAffinityPolicyProvider extends RoutingPolicyProvider {
  @Override
  public String policyName() {
    return SessionAffinityPolicy.NAME;
  }

  @Override
  public String description() {
    return "sticky by session id, escaping per turn when staying costs more than the recompute";
  }

  @Override
  public ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment) {
    PolicyConfig c = PolicyConfig.of(config);
    long ttl = c.longIn("ttl_seconds", SessionAffinityPolicy.DEFAULT_TTL_SECONDS, 1, 30L * 86_400);
    long max = c.longIn("max_sessions", SessionAffinityPolicy.DEFAULT_MAX_SESSIONS, 1,
        1_000_000_000L);
    return c.finish(() -> new SessionAffinityPolicy(Duration.ofSeconds(ttl), max,
        environment.ticker()));
  }
}
