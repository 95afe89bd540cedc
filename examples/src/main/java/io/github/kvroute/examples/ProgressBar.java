package io.github.kvroute.examples;

import java.io.PrintWriter;

/**
 * A one-line progress bar on a terminal stream: {@code [#######.......]  48%  12/25 runs  hybrid-cost}.
 * Redrawn in place with a carriage return, at most once per percent: for a terminal only (see
 * {@link Progress#on}).
 *
 * <p>Thread-safety: synchronized (parallel runs report into one bar).
 */
final class ProgressBar implements Progress {
  private static final int WIDTH = 30;

  private final PrintWriter err;
  private final int totalRuns;
  private final double[] fractions;
  private int lastPercent = -1;
  private String label = "";

  ProgressBar(PrintWriter err, int totalRuns) {
    this.err = err;
    this.totalRuns = Math.max(1, totalRuns);
    this.fractions = new double[this.totalRuns];
  }

  @Override
  public synchronized void update(int run, double fraction, String label) {
    fractions[run] = Math.min(1, Math.max(fractions[run], fraction));
    this.label = label;
    double sum = 0;
    int done = 0;
    for (double f : fractions) {
      sum += f;
      done += f >= 1 ? 1 : 0;
    }
    int percent = (int) (100 * sum / totalRuns);
    if (percent == lastPercent) {
      return;
    }
    lastPercent = percent;
    int filled = percent * WIDTH / 100;
    err.print("\r[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] "
        + String.format("%3d%%  %d/%d runs  %-28s", percent, done, totalRuns, this.label));
    err.flush();
  }

  @Override
  public synchronized void finish() {
    err.print("\r" + " ".repeat(WIDTH + 80) + "\r");
    err.flush();
  }
}
