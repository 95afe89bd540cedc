package io.github.kvroute.telemetry;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * A parsed Prometheus text exposition: its samples by name, and what could not be parsed. Produced by
 * {@link PrometheusText#parse}.
 *
 * <p>Several series of one name (one per label set: vLLM's {@code engine}, SGLang's {@code dp_rank})
 * are kept apart; {@link #sum} adds them up, which is what a replica's totals are.
 *
 * <p>Immutable and thread-safe.
 */
public final class Exposition {
  private final Map<String, List<Sample>> byName;
  private final int sampleCount;
  private final int malformedLines;
  private final List<String> problems;

  Exposition(List<Sample> samples, int malformedLines, List<String> problems) {
    Map<String, List<Sample>> grouped = new LinkedHashMap<>();
    for (Sample s : samples) {
      grouped.computeIfAbsent(s.name(), n -> new ArrayList<>()).add(s);
    }
    grouped.replaceAll((n, list) -> List.copyOf(list));
    this.byName = Map.copyOf(grouped);
    this.sampleCount = samples.size();
    this.malformedLines = malformedLines;
    this.problems = List.copyOf(problems);
  }

  /**
   * {@return every series named {@code name}, in exposition order; empty when there is none}
   *
   * @param name a metric name as exposed, e.g. {@code vllm:num_requests_running}
   */
  public List<Sample> series(String name) {
    return byName.getOrDefault(name, List.of());
  }

  /**
   * {@return whether at least one series is named {@code name}}
   *
   * @param name a metric name as exposed, e.g. {@code vllm:num_requests_running}
   */
  public boolean has(String name) {
    return byName.containsKey(name);
  }

  /**
   * {@return the first series named {@code name}, in exposition order; empty when there is none}
   *
   * @param name a metric name as exposed, e.g. {@code vllm:num_requests_running}
   */
  public Optional<Sample> first(String name) {
    List<Sample> s = series(name);
    return s.isEmpty() ? Optional.empty() : Optional.of(s.get(0));
  }

  /**
   * {@return the sum over every series named {@code name}; empty when there is none}
   *
   * @param name a metric name as exposed, e.g. {@code vllm:num_requests_running}
   */
  public OptionalDouble sum(String name) {
    List<Sample> s = series(name);
    if (s.isEmpty()) {
      return OptionalDouble.empty();
    }
    double total = 0;
    for (Sample sample : s) {
      total += sample.value();
    }
    return OptionalDouble.of(total);
  }

  /**
   * {@return the mean over every series named {@code name}; empty when there is none}
   *
   * @param name a metric name as exposed, e.g. {@code vllm:num_requests_running}
   */
  public OptionalDouble mean(String name) {
    List<Sample> s = series(name);
    OptionalDouble total = sum(name);
    return total.isEmpty() ? total : OptionalDouble.of(total.getAsDouble() / s.size());
  }

  /** {@return the number of samples parsed} */
  public int sampleCount() {
    return sampleCount;
  }

  /** {@return the lines skipped because they were not valid exposition lines} */
  public int malformedLines() {
    return malformedLines;
  }

  /**
   * {@return the first few malformed lines' descriptions ({@code line N: reason}), at most
   * {@value PrometheusText#MAX_PROBLEMS_KEPT}}
   */
  public List<String> problems() {
    return problems;
  }

  @Override
  public String toString() {
    return "Exposition{samples=" + sampleCount + ", names=" + byName.size()
        + ", malformed=" + malformedLines + "}";
  }
}
