package io.github.kvroute.examples.gateway;

import java.util.Random;

/** Prompt text for the gateway's tests: lowercase words, reproducible from the random's seed. */
final class RandomText {
  private RandomText() {}

  /** {@code chars} characters of letters and spaces drawn from {@code random}. */
  static String text(Random random, int chars) {
    StringBuilder s = new StringBuilder(chars);
    while (s.length() < chars) {
      s.append((char) ('a' + random.nextInt(26)));
      if (random.nextInt(6) == 0) {
        s.append(' ');
      }
    }
    s.setLength(chars);
    return s.toString();
  }
}
