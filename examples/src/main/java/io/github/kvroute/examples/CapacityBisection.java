package io.github.kvroute.examples;

import io.github.kvroute.sim.CapacityAtSlo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Where to run next to place a sweep's capacity more closely: halfway between the last load scale
 * that met the SLO attainment and the first that missed it.
 *
 * <h2>Design notes</h2>
 * The default sweep's scales are half a unit apart above 1x, and attainment does not fall linearly
 * between two of them: it drops steeply at a knee somewhere inside and then flattens. Interpolating
 * across the whole interval credits a policy that degrades gracefully past the knee with a capacity
 * it does not have. On {@code rag-long-docs} (seed 2, one router, {@code vllm} telemetry) hybrid-cost
 * met 0.999 at 1x and 0.552 at 1.5x, weighted-score 1.000 and 0.132, so the interpolated capacities
 * were 9.10 and 8.66 req/s; run at 1.1x and 1.2x as well, weighted-score held 0.991 and 0.811 where
 * hybrid-cost held 0.945 and 0.669, and the capacities came out 9.14 and 9.43. Each bisection
 * step halves the interval the interpolation spans, with one more run per policy; three steps narrow
 * a half-unit interval to a sixteenth.
 *
 * <p>Stateless; {@link #rounds} runs on the calling thread, its jobs on the runner's.
 */
final class CapacityBisection {
  private CapacityBisection() {}

  /** The same row and section as {@code like}, at load {@code scale}. */
  interface JobAt {
    CompareJob at(CompareJob like, double scale);
  }

  /** Runs the jobs of one round (in parallel, as the sweep's were) and fills their results. */
  interface Runner {
    void run(List<CompareJob> round) throws InterruptedException;
  }

  /**
   * Up to {@code steps} rounds of bisection after {@code sweep} ran: each round runs every row
   * (policy, or its oracle) of every section whose capacity the runs so far bracket once more, at
   * the bracket's midpoint ({@link #nextScale}); it stops early when none is bracketed.
   *
   * @return the runs the rounds added, in the order they ran
   */
  static List<CompareJob> rounds(List<CompareJob> sweep, int steps, JobAt jobAt, Runner runner)
      throws InterruptedException {
    List<CompareJob> between = new ArrayList<>();
    for (int step = 0; step < steps; step++) {
      Map<String, CompareJob> firstRun = new LinkedHashMap<>();
      Map<String, NavigableMap<Double, Double>> attainment = new LinkedHashMap<>();
      for (List<CompareJob> runs : List.of(sweep, between)) {
        for (CompareJob j : runs) {
          String key = j.section + "/" + j.row();
          firstRun.putIfAbsent(key, j);
          attainment.computeIfAbsent(key, k -> new TreeMap<>())
              .put(j.scale, j.result.sloAttainment());
        }
      }
      List<CompareJob> round = new ArrayList<>();
      attainment.forEach((key, runs) -> {
        double next = nextScale(runs);
        if (!Double.isNaN(next)) {
          round.add(jobAt.at(firstRun.get(key), next));
        }
      });
      if (round.isEmpty()) {
        break;
      }
      runner.run(round);
      between.addAll(round);
    }
    return between;
  }

  /**
   * The scale to run next for one policy's runs so far, or NaN when its capacity is not bracketed:
   * every run met the attainment (the capacity is beyond the sweep) or the lowest already missed.
   *
   * @param attainmentByScale each run's SLO attainment by its load scale
   * @return the midpoint of the bracket {@link CapacityAtSlo} interpolates in, or NaN
   */
  static double nextScale(NavigableMap<Double, Double> attainmentByScale) {
    Double met = null;
    for (Map.Entry<Double, Double> run : attainmentByScale.entrySet()) {
      if (run.getValue() < CapacityAtSlo.ATTAINMENT) {
        return met == null ? Double.NaN : (met + run.getKey()) / 2;
      }
      met = run.getKey();
    }
    return Double.NaN;
  }
}
