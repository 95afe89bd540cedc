package io.github.kvroute.examples;

import java.io.PrintWriter;

/**
 * How {@code compare} reports its runs on stderr: a bar redrawn in place on a terminal, one line per
 * finished run anywhere else (a pipe or a CI log would otherwise fill with carriage returns).
 *
 * <p>Thread-safety: implementations are thread-safe (parallel runs report into one).
 */
interface Progress {
  /** Run {@code run} (0-based) is {@code fraction} done; {@code label} names it. */
  void update(int run, double fraction, String label);

  /** All runs have ended (or the command failed): leave stderr clean for what follows. */
  void finish();

  /** A {@link ProgressBar} when {@code terminal}, else {@link ProgressLines}. */
  static Progress on(PrintWriter err, int totalRuns, boolean terminal) {
    return terminal ? new ProgressBar(err, totalRuns) : new ProgressLines(err, totalRuns);
  }
}
