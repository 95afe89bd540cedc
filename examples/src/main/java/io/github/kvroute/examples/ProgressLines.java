package io.github.kvroute.examples;

import java.io.PrintWriter;

/**
 * Progress for a pipe or a log: one line per finished run, {@code kvroute-sim: run 3/25 done:
 * hybrid-cost x1.5}, numbered in the order the runs finish.
 *
 * <p>Thread-safety: synchronized (parallel runs report into one).
 */
final class ProgressLines implements Progress {
  private final PrintWriter err;
  private final int totalRuns;
  private final boolean[] done;
  private int finished;

  ProgressLines(PrintWriter err, int totalRuns) {
    this.err = err;
    this.totalRuns = Math.max(1, totalRuns);
    this.done = new boolean[this.totalRuns];
  }

  @Override
  public synchronized void update(int run, double fraction, String label) {
    if (fraction < 1 || done[run]) {
      return;
    }
    done[run] = true;
    finished++;
    err.println("kvroute-sim: run " + finished + "/" + totalRuns + " done: " + label);
    err.flush();
  }

  @Override
  public void finish() {
    // every line is already complete
  }
}
