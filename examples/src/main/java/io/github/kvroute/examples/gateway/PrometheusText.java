package io.github.kvroute.examples.gateway;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The samples of one Prometheus text exposition, enough for vLLM's {@code /metrics}: each sample's
 * name, its labels and its value. Comments and blank lines are skipped, and so is a line that does
 * not parse (one bad line costs its own sample, not the scrape). When a name occurs with several
 * label sets, their values are summed (vLLM labels each engine of a data-parallel replica apart).
 *
 * <p>Immutable once parsed, and thread-safe.
 */
final class PrometheusText {
  private final Map<String, Double> sums = new HashMap<>();
  private final Map<String, Map<String, String>> firstLabels = new HashMap<>();

  private PrometheusText() {}

  static PrometheusText parse(String text) {
    PrometheusText p = new PrometheusText();
    for (String line : text.split("\n")) {
      p.add(line.strip());
    }
    return p;
  }

  /** The sum of {@code name}'s samples, empty when none parsed. */
  OptionalDouble value(String name) {
    Double v = sums.get(name);
    return v == null ? OptionalDouble.empty() : OptionalDouble.of(v);
  }

  /** Label {@code label} of {@code name}'s first sample, or null. */
  String label(String name, String label) {
    Map<String, String> labels = firstLabels.get(name);
    return labels == null ? null : labels.get(label);
  }

  private void add(String line) {
    if (line.isEmpty() || line.startsWith("#")) {
      return;
    }
    int brace = line.indexOf('{');
    int space = line.lastIndexOf(' ');
    if (space < 0) {
      return;
    }
    String name;
    Map<String, String> labels = new HashMap<>();
    if (brace >= 0 && brace < space) {
      int close = line.lastIndexOf('}');
      if (close < brace || close > space) {
        return;
      }
      name = line.substring(0, brace);
      if (!parseLabels(line.substring(brace + 1, close), labels)) {
        return;
      }
    } else {
      name = line.substring(0, space).strip();
    }
    double value;
    try {
      value = Double.parseDouble(line.substring(space + 1).strip());
    } catch (NumberFormatException e) {
      return;
    }
    if (Double.isNaN(value)) {
      return;
    }
    sums.merge(name, value, Double::sum);
    firstLabels.putIfAbsent(name, labels);
  }

  /** Parses {@code a="x",b="y"}; false when malformed. Values may not contain quotes. */
  private static boolean parseLabels(String s, Map<String, String> out) {
    int i = 0;
    while (i < s.length()) {
      int eq = s.indexOf('=', i);
      if (eq < 0 || eq + 1 >= s.length() || s.charAt(eq + 1) != '"') {
        return false;
      }
      int end = s.indexOf('"', eq + 2);
      if (end < 0) {
        return false;
      }
      out.put(s.substring(i, eq).strip(), s.substring(eq + 2, end));
      i = end + 1;
      if (i < s.length() && s.charAt(i) == ',') {
        i++;
      }
    }
    return true;
  }
}
