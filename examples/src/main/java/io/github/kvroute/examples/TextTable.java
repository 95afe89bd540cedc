package io.github.kvroute.examples;

import java.util.List;

/**
 * Aligned plain-text tables for the terminal: the first column left-aligned, the others right-aligned,
 * two spaces apart, each as wide as its widest cell.
 */
final class TextTable {
  private TextTable() {}

  /** {@code rows} (the header first), one line each; every row has the header's cell count. */
  static String render(List<List<String>> rows) {
    int columns = rows.get(0).size();
    int[] width = new int[columns];
    for (List<String> row : rows) {
      for (int c = 0; c < columns; c++) {
        width[c] = Math.max(width[c], row.get(c).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : rows) {
      for (int c = 0; c < columns; c++) {
        String cell = row.get(c);
        String pad = " ".repeat(width[c] - cell.length());
        out.append(c == 0 ? cell + pad : "  " + pad + cell);
      }
      out.append('\n');
    }
    return out.toString();
  }
}
