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
    String[] header = SimulationResult.CSV_HEADER.split(",");
    List<String[]> rows = new ArrayList<>();
    rows.add(header);
    for (SimulationResult r : results) {
      rows.add(r.csvRow().split(",", -1));
    }
    int[] width = new int[header.length];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        String cell = row[c];
        if (c == 0) {
          out.append(cell).append(" ".repeat(width[c] - cell.length()));
        } else {
          out.append("  ").append(" ".repeat(width[c] - cell.length())).append(cell);
        }
      }
      out.append('\n');
    }
    return out.toString();
  }
}
