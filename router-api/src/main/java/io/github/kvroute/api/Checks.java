package io.github.kvroute.api;

import java.time.Duration;
import java.util.Objects;

/**
 * Argument checks producing the project's message shape {@code name: value (expected: …)}.
 * Hand-written because router-api depends on the JDK only; the other modules use Guava.
 */
final class Checks {
  private Checks() {}

  static <T> T notNull(T value, String name) {
    return Objects.requireNonNull(value, () -> name + ": null (expected: non-null)");
  }

  static String notBlank(String value, String name) {
    notNull(value, name);
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + ": \"" + value + "\" (expected: non-blank)");
    }
    return value;
  }

  static int atLeast(int value, int min, String name) {
    if (value < min) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: >= " + min + ")");
    }
    return value;
  }

  static long atLeast(long value, long min, String name) {
    if (value < min) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: >= " + min + ")");
    }
    return value;
  }

  static double nonNegativeFinite(double value, String name) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: finite and >= 0)");
    }
    return value;
  }

  static double positiveFinite(double value, String name) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: finite and > 0)");
    }
    return value;
  }

  static Duration nonNegative(Duration value, String name) {
    notNull(value, name);
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0)");
    }
    return value;
  }

  /** An epoch in {@code [0, ReplicaSnapshot.MAX_EPOCH]}. */
  static long epoch(long value) {
    if (value < 0 || value > ReplicaSnapshot.MAX_EPOCH) {
      throw new IllegalArgumentException(
          "epoch: " + value + " (expected: in [0, " + ReplicaSnapshot.MAX_EPOCH + "])");
    }
    return value;
  }

  /** {@code d} as "N ms" for messages, or its ISO form where milliseconds overflow a long. */
  static String millisText(Duration d) {
    try {
      return d.toMillis() + " ms";
    } catch (ArithmeticException e) {
      return d.toString();
    }
  }

  static void state(boolean ok, String name, Object value, String expected) {
    if (!ok) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: " + expected + ")");
    }
  }

  /** Builders whose options are set once: a second call is a programming error. */
  static void unset(boolean alreadySet, String option) {
    if (alreadySet) {
      throw new IllegalStateException(option + ": already set (expected: each builder option set once)");
    }
  }
}
