package io.github.kvroute.api;

/**
 * A source of nanosecond time for the router. Everything in kvroute that reads time reads it from an
 * injected {@code Ticker}, so a simulation can run in virtual time and a test can step time by hand.
 *
 * <p>Values are only meaningful as differences between reads of the same ticker. Timestamps handed to
 * the router (a snapshot's {@code observedAtNanos}, a request's {@code arrivalNanos}) must come from the
 * router's ticker.
 *
 * <p>Thread-safety: implementations must be safe to call from any thread.
 */
@FunctionalInterface
public interface Ticker {

  /** {@return the current time in nanoseconds on this ticker's arbitrary origin} */
  long read();

  /** {@return the JVM's monotonic clock, {@link System#nanoTime()}} */
  static Ticker system() {
    return System::nanoTime;
  }
}
