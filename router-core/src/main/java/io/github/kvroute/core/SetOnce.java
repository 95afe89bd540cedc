package io.github.kvroute.core;

import com.google.common.base.CaseFormat;

/**
 * "Each option set once", the one way every builder of this module tracks it (as router-api's builders
 * do): a bit per constant of the builder's private option enum in a {@code long}. Builders call it
 * after checking the option's value, so a rejected value leaves the option unset.
 */
final class SetOnce {
  private SetOnce() {}

  /**
   * {@code set} with {@code option}'s bit.
   *
   * @throws IllegalStateException if the option was already set, naming it in lower camel case
   */
  static long mark(long set, Enum<?> option) {
    return mark(set, option.ordinal(),
        CaseFormat.UPPER_UNDERSCORE.to(CaseFormat.LOWER_CAMEL, option.name()));
  }

  /** {@code set} with bit {@code bit}, for an option named {@code name} (for example per priority). */
  static long mark(long set, int bit, String name) {
    long mask = 1L << bit;
    if ((set & mask) != 0) {
      throw new IllegalStateException(name + ": already set (expected: each builder option set once)");
    }
    return set | mask;
  }
}
