package io.github.kvroute.api;

/**
 * What a policy may take from the router when it is created: the router's time and randomness, so that
 * policies with their own state (expiring session maps, sliding windows) run in the same virtual time
 * and reproduce from the same seed.
 *
 * <p>Immutable and thread-safe.
 */
public final class PolicyEnvironment {
  private final Ticker ticker;
  private final RandomSource random;
  private final RoutingPolicyRegistry registry;

  private PolicyEnvironment(Ticker ticker, RandomSource random, RoutingPolicyRegistry registry) {
    this.ticker = Checks.notNull(ticker, "ticker");
    this.random = Checks.notNull(random, "random");
    this.registry = registry;
  }

  /**
   * An environment whose registry is {@link RoutingPolicyRegistry#defaultRegistry()}.
   *
   * @param ticker the router's clock
   * @param random the router's randomness
   * @return the environment
   */
  public static PolicyEnvironment of(Ticker ticker, RandomSource random) {
    return new PolicyEnvironment(ticker, random, null);
  }

  /**
   * An environment resolving policy names (for policies that wrap others) in {@code registry}.
   *
   * @param ticker the router's clock
   * @param random the router's randomness
   * @param registry where wrapped policies' names are resolved; not null
   * @return the environment
   */
  public static PolicyEnvironment of(
      Ticker ticker, RandomSource random, RoutingPolicyRegistry registry) {
    return new PolicyEnvironment(ticker, random, Checks.notNull(registry, "registry"));
  }

  /** {@return the system clock and thread-local randomness} */
  public static PolicyEnvironment system() {
    return new PolicyEnvironment(Ticker.system(), RandomSource.threadLocal(), null);
  }

  /** {@return where a policy that wraps others resolves their names: the router's registry} */
  public RoutingPolicyRegistry registry() {
    return registry != null ? registry : RoutingPolicyRegistry.defaultRegistry();
  }

  /** {@return the router's clock, in nanoseconds} */
  public Ticker ticker() {
    return ticker;
  }

  /** {@return the router's injected randomness; policies draw from it so decisions reproduce} */
  public RandomSource random() {
    return random;
  }
}
