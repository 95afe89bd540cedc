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

  private PolicyEnvironment(Ticker ticker, RandomSource random) {
    this.ticker = Checks.notNull(ticker, "ticker");
    this.random = Checks.notNull(random, "random");
  }

  public static PolicyEnvironment of(Ticker ticker, RandomSource random) {
    return new PolicyEnvironment(ticker, random);
  }

  /** The system clock and thread-local randomness. */
  public static PolicyEnvironment system() {
    return new PolicyEnvironment(Ticker.system(), RandomSource.threadLocal());
  }

  public Ticker ticker() {
    return ticker;
  }

  public RandomSource random() {
    return random;
  }
}
