package io.github.kvroute.examples;

import io.github.kvroute.sim.CapacityAtSlo;
import io.github.kvroute.sim.SimulationResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Capacity at SLO per policy from a load sweep: the CSV columns appended after the fixed ones, and
 * the second table (capacity, then the SLO attainment at each load scale, so the knee shows).
 */
final class CapacityTable {
  private CapacityTable() {}

  /**
   * One policy's sweep: its runs by load scale, increasing, and the runs between them that bisected
   * its capacity's bracket ({@link CapacityBisection}), which the capacity counts and the attainment
   * table does not show.
   */
  record Sweep(List<Double> scales, List<SimulationResult> runs, List<SimulationResult> between) {
    CapacityAtSlo capacity() {
      List<SimulationResult> all = new ArrayList<>(runs);
      all.addAll(between);
      return CapacityAtSlo.ofResults(all);
    }
  }

  /**
   * Each row's runs of section {@code s} by load scale, keyed by the row's name (a policy's oracle
   * runs are a sweep of their own, {@code POLICY+oracle}, never part of the policy's), with the
   * row's bisection runs from {@code between}; empty without a sweep.
   */
  static Map<String, Sweep> sweeps(List<CompareJob> jobs, List<CompareJob> between, int s,
      List<Double> scales) {
    Map<String, Sweep> out = new LinkedHashMap<>();
    if (scales.size() < 2) {
      return out;
    }
    List<Double> sorted = scales.stream().sorted().toList();
    Map<String, SimulationResult[]> runs = new LinkedHashMap<>();
    for (CompareJob j : jobs) {
      if (j.section == s) {
        runs.computeIfAbsent(j.row(), k -> new SimulationResult[sorted.size()])[
            sorted.indexOf(j.scale)] = j.result;
      }
    }
    runs.forEach((row, r) -> out.put(row, new Sweep(sorted, List.of(r),
        between.stream().filter(j -> j.section == s && j.row().equals(row))
            .map(j -> j.result).toList())));
    return out;
  }

  /** The full CSV header: the fixed columns, then {@link CapacityAtSlo#CSV_COLUMNS}. */
  static String csvHeader() {
    return SimulationResult.CSV_HEADER + "," + CapacityAtSlo.CSV_COLUMNS;
  }

  /** {@code row} (a fixed-column CSV row of {@code result}) with the appended columns. */
  static String csvRow(String row, SimulationResult result, Sweep sweep) {
    String capacity = sweep == null ? ","
        : String.format(Locale.ROOT, "%.3f,%s", sweep.capacity().rps(), sweep.capacity().bound()
            .symbol());
    return row + String.format(Locale.ROOT, ",%.3f,", result.offeredRps()) + capacity;
  }

  /** The second table; empty when there was no sweep. */
  static String render(Map<String, Sweep> sweeps) {
    if (sweeps.isEmpty()) {
      return "";
    }
    List<Double> scales = sweeps.values().iterator().next().scales();
    List<String> header = new ArrayList<>(List.of("policy", "capacity_rps"));
    for (double s : scales) {
      header.add(String.format(Locale.ROOT, "att@x%s", trim(s)));
    }
    Map<String, List<String>> rows = new LinkedHashMap<>();
    for (Map.Entry<String, Sweep> e : sweeps.entrySet()) {
      List<String> row = new ArrayList<>(List.of(e.getKey(), e.getValue().capacity().display()));
      for (SimulationResult r : e.getValue().runs()) {
        row.add(String.format(Locale.ROOT, "%.3f", r.sloAttainment()));
      }
      rows.put(e.getKey(), row);
    }
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows.values());
    return String.format(Locale.ROOT,
        "capacity_rps: highest offered req/s with SLO attainment >= %.0f%% (interpolated on the sweep,"
            + " bisected by --capacity-steps)%n",
        CapacityAtSlo.ATTAINMENT * 100) + TextTable.render(all);
  }

  private static String trim(double scale) {
    return scale == Math.rint(scale) ? String.valueOf((long) scale) : String.valueOf(scale);
  }
}
