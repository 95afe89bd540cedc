package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * {@code capacity_rps}: the highest offered rate at which a policy keeps SLO attainment at or above
 * {@value #ATTAINMENT}, read off a load sweep (the same scenario at several rate scales).
 *
 * <p>Going up the sweep by offered rate, the capacity lies between the last run that still met the
 * target and the first that did not, interpolated linearly in attainment:
 * {@code r1 + (a1 - 0.9) / (a1 - a2) x (r2 - r1)}. Runs past that first miss are not consulted (a lucky
 * recovery at a higher load does not raise the capacity). When every run met the target the capacity is
 * at least the highest rate swept ({@link Bound#AT_LEAST}); when the lowest already missed, it is below
 * the lowest ({@link Bound#BELOW}).
 *
 * <p>Immutable and thread-safe.
 */
public final class CapacityAtSlo {
  /** The SLO attainment the capacity keeps. */
  public static final double ATTAINMENT = 0.9;

  /** The CSV columns the comparison appends after {@link SimulationResult#CSV_HEADER}. */
  public static final String CSV_COLUMNS = "offered_rps,capacity_rps,capacity_bound";

  /** How {@link #rps()} relates to the true capacity. */
  public enum Bound {
    /** Interpolated between two runs of the sweep. */
    WITHIN("="),
    /** Every run met the target: the capacity is at least the highest rate swept. */
    AT_LEAST(">="),
    /** The lowest run already missed: the capacity is below the lowest rate swept. */
    BELOW("<");

    private final String symbol;

    Bound(String symbol) {
      this.symbol = symbol;
    }

    /** {@return {@code =}, {@code >=} or {@code <}, as printed} */
    public String symbol() {
      return symbol;
    }
  }

  /** One run of a sweep: its offered rate and the SLO attainment it reached. */
  public record Point(double offeredRps, double sloAttainment) {
    /**
     * @param offeredRps the run's offered requests per second; finite, {@code > 0}
     * @param sloAttainment the run's SLO attainment, in {@code [0, 1]}
     * @throws IllegalArgumentException if a value is not finite or out of range
     */
    public Point {
      checkArgument(offeredRps > 0 && Double.isFinite(offeredRps),
          "offeredRps: %s (expected: finite and > 0)", offeredRps);
      checkArgument(sloAttainment >= 0 && sloAttainment <= 1,
          "sloAttainment: %s (expected: in [0, 1])", sloAttainment);
    }
  }

  private final double rps;
  private final Bound bound;

  private CapacityAtSlo(double rps, Bound bound) {
    this.rps = rps;
    this.bound = bound;
  }

  /**
   * The capacity read off {@code sweep}, in any order.
   *
   * @param sweep one point per run, offered rate and SLO attainment
   * @return the capacity and how it bounds the true one
   * @throws IllegalArgumentException if the sweep is empty
   */
  public static CapacityAtSlo of(List<Point> sweep) {
    checkNotNull(sweep, "sweep: null (expected: points)");
    checkArgument(!sweep.isEmpty(), "sweep: [] (expected: at least one point)");
    List<Point> byRate = new ArrayList<>(sweep);
    byRate.sort(Comparator.comparingDouble(Point::offeredRps));
    Point first = byRate.get(0);
    if (first.sloAttainment() < ATTAINMENT) {
      return new CapacityAtSlo(first.offeredRps(), Bound.BELOW);
    }
    for (int i = 1; i < byRate.size(); i++) {
      Point met = byRate.get(i - 1);
      Point missed = byRate.get(i);
      if (missed.sloAttainment() < ATTAINMENT) {
        double fraction = (met.sloAttainment() - ATTAINMENT)
            / (met.sloAttainment() - missed.sloAttainment());
        return new CapacityAtSlo(
            met.offeredRps() + fraction * (missed.offeredRps() - met.offeredRps()), Bound.WITHIN);
      }
    }
    return new CapacityAtSlo(byRate.get(byRate.size() - 1).offeredRps(), Bound.AT_LEAST);
  }

  /**
   * The capacity read off the runs of one policy's sweep ({@link SimulationResult#offeredRps()}).
   *
   * @param sweep the results of one policy on one scenario at several rate scales; not empty
   * @return the capacity and how it bounds the true one
   */
  public static CapacityAtSlo ofResults(List<SimulationResult> sweep) {
    checkNotNull(sweep, "sweep: null (expected: results)");
    return of(sweep.stream().map(r -> new Point(r.offeredRps(), r.sloAttainment())).toList());
  }

  /** {@return requests per second (see {@link #bound()})} */
  public double rps() {
    return rps;
  }

  /** {@return whether {@link #rps()} is the capacity interpolated, a lower bound, or above it} */
  public Bound bound() {
    return bound;
  }

  /** {@return {@code 12.345}, {@code >=12.345} or {@code <12.345}} */
  public String display() {
    return (bound == Bound.WITHIN ? "" : bound.symbol())
        + String.format(Locale.ROOT, "%.3f", rps);
  }

  @Override
  public String toString() {
    return "CapacityAtSlo{" + bound.symbol() + " " + rps + " req/s}";
  }
}
