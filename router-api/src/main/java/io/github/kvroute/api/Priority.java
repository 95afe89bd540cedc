package io.github.kvroute.api;

/**
 * How much a request is worth protecting when the fleet is short of capacity. Admission controllers
 * may treat classes differently; the standard one (core's {@code Admission}) takes a backpressure
 * limit per class and by default sets one for {@link #BATCH} only, so batch work is shed first and the
 * others by their own deadlines.
 */
public enum Priority {
  /** A person is waiting for the first token. */
  INTERACTIVE,
  /** The default. */
  STANDARD,
  /** Throughput work that tolerates delay. */
  BATCH
}
