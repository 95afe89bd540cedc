package io.github.kvroute.examples;

import io.github.kvroute.sim.SimulationResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders results as an aligned text table with the CSV's columns (same order, same names), so the
 * table and the file read the same way.
 */
final class ResultTable {
  private ResultTable() {}

  static String render(List<SimulationResult> results) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of(SimulationResult.CSV_HEADER.split(",")));
    for (SimulationResult r : results) {
      rows.add(List.of(r.csvRow().split(",", -1)));
    }
    return TextTable.render(rows);
  }
}
