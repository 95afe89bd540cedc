package io.github.kvroute.sim;

/**
 * Told how far a run has got, at most about a hundred times per run and once at the end
 * ({@code done == total}). The simulator itself prints nothing; a CLI draws its progress bar here.
 *
 * <p>Called on the thread running the simulation; implementations should return quickly.
 */
@FunctionalInterface
public interface ProgressListener {
  /** A listener that ignores progress. */
  ProgressListener NONE = (done, total) -> { };

  /**
   * @param done requests ended so far
   * @param total requests the run expects to end
   */
  void progress(long done, long total);
}
