package io.github.kvroute.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Reads a policy's typed options from a host's string map, collecting every problem as a message
 * instead of throwing, and refusing keys nobody read (a misspelt key must not silently fall back to a
 * default).
 *
 * <pre>{@code
 * PolicyConfig c = PolicyConfig.of(raw);
 * double threshold = c.doubleIn("cache_threshold", 0.3, 0, 1);
 * int absolute = c.intIn("balance_abs_threshold", 64, 0, Integer.MAX_VALUE);
 * return c.finish(() -> new CacheAwarePolicy(threshold, absolute));
 * }</pre>
 *
 * <p>Not thread-safe: one reader per parse.
 */
public final class PolicyConfig {
  private final Map<String, String> raw;
  private final Set<String> read = new TreeSet<>();
  private final List<String> errors = new ArrayList<>();

  private PolicyConfig(Map<String, String> raw) {
    this.raw = new LinkedHashMap<>(raw);
  }

  /**
   * @param raw option names to their text values; copied
   * @return the configuration, with no option read yet
   * @throws NullPointerException if {@code raw} or one of its keys or values is null
   */
  public static PolicyConfig of(Map<String, String> raw) {
    Checks.notNull(raw, "config");
    raw.forEach((k, v) -> {
      Checks.notNull(k, "config key");
      Checks.notNull(v, "config[" + k + "]");
    });
    return new PolicyConfig(raw);
  }

  /**
   * A number in {@code [min, max]}, or {@code defaultValue} when absent.
   *
   * @param key the option's name
   * @param defaultValue the value when the option is absent
   * @param min the least accepted value
   * @param max the greatest accepted value
   * @return the parsed value, or {@code defaultValue} when absent or invalid (an invalid one is
   *     recorded in {@link #errors()})
   */
  public double doubleIn(String key, double defaultValue, double min, double max) {
    String v = take(key);
    if (v == null) {
      return defaultValue;
    }
    try {
      double d = Double.parseDouble(v.trim());
      if (d >= min && d <= max) {
        return d;
      }
    } catch (NumberFormatException e) {
      // reported below with the expected range
    }
    errors.add(key + ": " + v + " (expected: a number in [" + fmt(min) + ", " + fmt(max) + "])");
    return defaultValue;
  }

  /**
   * An integer in {@code [min, max]}, or {@code defaultValue} when absent.
   *
   * @param key the option's name
   * @param defaultValue the value when the option is absent
   * @param min the least accepted value
   * @param max the greatest accepted value
   * @return the parsed value, or {@code defaultValue} when absent or invalid (an invalid one is
   *     recorded in {@link #errors()})
   */
  public int intIn(String key, int defaultValue, int min, int max) {
    long l = longIn(key, defaultValue, min, max);
    return (int) l;
  }

  /**
   * A long in {@code [min, max]}, or {@code defaultValue} when absent.
   *
   * @param key the option's name
   * @param defaultValue the value when the option is absent
   * @param min the least accepted value
   * @param max the greatest accepted value
   * @return the parsed value, or {@code defaultValue} when absent or invalid (an invalid one is
   *     recorded in {@link #errors()})
   */
  public long longIn(String key, long defaultValue, long min, long max) {
    String v = take(key);
    if (v == null) {
      return defaultValue;
    }
    try {
      long l = Long.parseLong(v.trim());
      if (l >= min && l <= max) {
        return l;
      }
    } catch (NumberFormatException e) {
      // reported below with the expected range
    }
    errors.add(key + ": " + v + " (expected: an integer in [" + min + ", " + max + "])");
    return defaultValue;
  }

  /**
   * {@code true} or {@code false}, or {@code defaultValue} when absent.
   *
   * @param key the option's name
   * @param defaultValue the value when the option is absent
   * @return the parsed value (case-insensitive), or {@code defaultValue} when absent or invalid (an
   *     invalid one is recorded in {@link #errors()})
   */
  public boolean bool(String key, boolean defaultValue) {
    String v = take(key);
    if (v == null) {
      return defaultValue;
    }
    String t = v.trim().toLowerCase(java.util.Locale.ROOT);
    if (t.equals("true") || t.equals("false")) {
      return t.equals("true");
    }
    errors.add(key + ": " + v + " (expected: true or false)");
    return defaultValue;
  }

  /**
   * One of {@code allowed}, or {@code defaultValue} when absent.
   *
   * @param key the option's name
   * @param defaultValue the value when the option is absent
   * @param allowed the accepted values
   * @return the value, trimmed, or {@code defaultValue} when absent or not allowed (then recorded
   *     in {@link #errors()})
   */
  public String oneOf(String key, String defaultValue, Set<String> allowed) {
    String v = take(key);
    if (v == null) {
      return defaultValue;
    }
    if (allowed.contains(v.trim())) {
      return v.trim();
    }
    errors.add(key + ": " + v + " (expected: one of " + new TreeSet<>(allowed) + ")");
    return defaultValue;
  }

  /**
   * Adds a cross-field problem found by the caller.
   *
   * @param message the problem, worded {@code key: value (expected: ...)}; not blank
   */
  public void addError(String message) {
    errors.add(Checks.notBlank(message, "message"));
  }

  /**
   * Problems found so far, in the order found.
   *
   * @return the recorded problems, then one for each option given but never read (unknown); a new
   *     list
   */
  public List<String> errors() {
    List<String> all = new ArrayList<>(errors);
    for (String k : raw.keySet()) {
      if (!read.contains(k)) {
        all.add(k + ": unknown option (expected: one of " + read + ")");
      }
    }
    return all;
  }

  /**
   * The built value, or every problem joined into one error.
   *
   * @param <T> the value's type
   * @param build makes the value; called only when there is no problem
   * @return the value, or one error joining every problem with {@code "; "}
   */
  public <T> ConfigOrError<T> finish(Supplier<T> build) {
    List<String> all = errors();
    if (!all.isEmpty()) {
      return ConfigOrError.error(String.join("; ", all));
    }
    return ConfigOrError.of(build.get());
  }

  private String take(String key) {
    read.add(key);
    return raw.get(key);
  }

  private static String fmt(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }
}
