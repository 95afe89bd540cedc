package io.github.kvroute.api;

/**
 * How much a request is worth protecting when the fleet is short of capacity. Admission sheds from the
 * bottom: {@link #BATCH} first, {@link #INTERACTIVE} last (only by its own deadline).
 */
public enum Priority {
  /** A person is waiting for the first token. */
  INTERACTIVE,
  /** The default. */
  STANDARD,
  /** Throughput work that tolerates delay; sheddable under pressure. */
  BATCH;

  /** Whether fleet backpressure may reject this class before its deadline is in danger. */
  public boolean isSheddable() {
    return this == BATCH;
  }
}
