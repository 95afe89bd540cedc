package io.github.kvroute.api;

import java.util.Map;

/**
 * A factory for one named policy, found through {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/io.github.kvroute.api.RoutingPolicyProvider}). Modelled on gRPC's
 * {@code LoadBalancerProvider}: several providers may offer the same name; the registry uses the
 * highest {@linkplain #priority() priority} among the {@linkplain #isAvailable() available} ones.
 *
 * <p>Implementations must not throw: not from the constructor (it runs during service loading), not
 * from {@link #isAvailable()}, not from {@link #newPolicy}; a bad configuration is returned as
 * {@link ConfigOrError#error}. Provider classes must be public with a public no-argument constructor.
 *
 * <pre>{@code
 * public final class MyPolicyProvider extends RoutingPolicyProvider {
 *   public String policyName() { return "my-policy"; }
 *   public ConfigOrError<RoutingPolicy> newPolicy(Map<String, String> config, PolicyEnvironment env) {
 *     PolicyConfig c = PolicyConfig.of(config);
 *     double weight = c.doubleIn("weight", 1.0, 0, 100);
 *     return c.finish(() -> new MyPolicy(weight));
 *   }
 * }
 * }</pre>
 *
 * <p>Thread-safety: implementations must be thread-safe. Equality is identity.
 */
public abstract class RoutingPolicyProvider {

  /**
   * {@return the policy's name: lower-case letters, digits and hyphens, starting with a letter
   * ({@code hybrid-cost})}
   */
  public abstract String policyName();

  /**
   * {@return this provider's priority, 0 to 10; the highest wins among providers of one name}
   * Default 5.
   */
  public int priority() {
    return 5;
  }

  /**
   * {@return whether this provider can be used in this environment (for example, an optional
   * dependency)}
   */
  public boolean isAvailable() {
    return true;
  }

  /** {@return one line saying what the policy does, for listings} */
  public String description() {
    return "";
  }

  /**
   * Parses {@code config} and creates a policy.
   *
   * @return the policy, or an error naming the offending key and its expected range
   * @param config the policy's options, by name
   * @param environment the router's clock, randomness and registry
   */
  public abstract ConfigOrError<RoutingPolicy> newPolicy(
      Map<String, String> config, PolicyEnvironment environment);

  @Override
  public final boolean equals(Object o) {
    return super.equals(o);
  }

  @Override
  public final int hashCode() {
    return super.hashCode();
  }

  @Override
  public String toString() {
    return getClass().getName() + "{policy=" + policyName() + ", priority=" + priority()
        + ", available=" + isAvailable() + "}";
  }
}
