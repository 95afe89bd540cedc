package io.github.kvroute.telemetry;

import java.util.Map;
import java.util.Objects;

/**
 * One sample line of a Prometheus text exposition: {@code name{labels} value}. A sample's optional
 * timestamp is not kept: the poller stamps the whole scrape with its own ticker.
 *
 * <p>Immutable and thread-safe.
 *
 * @param name the sample's name as exposed (a histogram's {@code _sum} and {@code _count} are samples of
 *     their own names)
 * @param labels label names to values, unmodifiable
 * @param value the value; may be NaN or infinite as the format allows
 */
public record Sample(String name, Map<String, String> labels, double value) {
  /**
   * Requires a name and copies {@code labels} into an unmodifiable map.
   *
   * @param name the sample's name as exposed (a histogram's {@code _sum} and {@code _count} are
   *     samples of their own names)
   * @param labels label names to values, unmodifiable
   * @param value the value; may be NaN or infinite as the format allows
   */
  public Sample {
    Objects.requireNonNull(name, "name");
    labels = Map.copyOf(labels);
  }

  /**
   * {@return the value of label {@code label}, or null when the sample does not carry it}
   *
   * @param label a label name, e.g. {@code engine}
   */
  public String label(String label) {
    return labels.get(label);
  }
}
