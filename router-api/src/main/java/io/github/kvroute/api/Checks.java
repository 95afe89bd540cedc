package io.github.kvroute.api;

import java.time.Duration;

/**
 * Argument checks producing the project's message shape {@code name: value (expected: …)}.
 * Hand-written because router-api depends on the JDK only; the other modules use Guava.
 */
final class Checks {
  private Checks() {}

  static <T> T notNull(T value, String name) {
    // no message supplier: a capturing lambda would be allocated on every call of every hot path
    if (value == null) {
      throw new NullPointerException(name + ": null (expected: non-null)");
    }
    return value;
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

  /** An argument, or a combination of arguments, outside its range. */
  static void argument(boolean ok, String name, Object value, String expected) {
    if (!ok) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: " + expected + ")");
    }
  }

  /** The object's own state forbids the call. */
  static void state(boolean ok, String name, Object value, String expected) {
    if (!ok) {
      throw new IllegalStateException(name + ": " + value + " (expected: " + expected + ")");
    }
  }

  /**
   * "Each option set once", the one way every builder of this module tracks it: a bit per constant of
   * the builder's private option enum in a {@code long}, so a builder allocates nothing for it.
   * Returns {@code set} with {@code option}'s bit; a second call for the same option is a programming
   * error. Call it after the option's value has been checked, so a rejected value leaves the option
   * unset.
   *
   * @throws IllegalStateException naming the option in lower camel case ({@code MAX_OUTPUT_TOKENS}:
   *     {@code maxOutputTokens})
   */
  static long once(long set, Enum<?> option) {
    long bit = 1L << option.ordinal();
    if ((set & bit) != 0) {
      throw new IllegalStateException(
          lowerCamel(option.name()) + ": already set (expected: each builder option set once)");
    }
    return set | bit;
  }

  /** Whether {@link #once} has marked {@code option} in {@code set}. */
  static boolean isSet(long set, Enum<?> option) {
    return (set & (1L << option.ordinal())) != 0;
  }

  private static String lowerCamel(String upperSnake) {
    StringBuilder b = new StringBuilder(upperSnake.length());
    boolean upper = false;
    for (char c : upperSnake.toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        b.append(upper ? c : Character.toLowerCase(c));
        upper = false;
      }
    }
    return b.toString();
  }
}
