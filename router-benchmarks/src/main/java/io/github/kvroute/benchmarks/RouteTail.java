package io.github.kvroute.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Where a decision's slow tail comes from: {@link RouteBenchmark}'s {@code callerObjects} and
 * {@code routeAndComplete}, each operation timed on its own, with the percentiles and the spacing
 * between slow operations (those over {@code -DslowMicros}, default 9). A tail that the router's
 * work causes has no period; one that recurs every {@code 4096 / (bytes per operation)} operations
 * is the operating system mapping a fresh page of the heap on its first write, which the JVM's
 * {@code -XX:+AlwaysPreTouch} (with {@code -Xms} equal to {@code -Xmx}) moves to start-up. Run it
 * with and without that flag to tell the two apart.
 *
 * <p>It first measures the machine itself: a loop that does nothing but read the clock for
 * {@value #GAP_SECONDS} s counts the gaps over the slow threshold (the thread descheduled, the
 * virtual CPU stolen, an interrupt served). Such gaps fall on an operation in proportion to the
 * time it runs, so about {@code rate x median time} of the operations are slow whatever the
 * router does; each line prints that share beside the measured one. Prints its lines; not a JMH
 * benchmark.
 *
 * <pre>java [-Xms2g -Xmx2g -XX:+AlwaysPreTouch] -cp router-benchmarks/target/benchmarks.jar
 *     io.github.kvroute.benchmarks.RouteTail [OPERATIONS]</pre>
 */
public final class RouteTail {
  private static final int WARMUP = 300_000;
  /** Spacings seen this often among the slow operations are printed. */
  private static final int COMMON_SPACING = 50;
  /** How long the clock-reading loop runs. */
  private static final int GAP_SECONDS = 5;
  /** Where each operation's result goes, so that the JIT cannot drop the work. */
  static volatile Object sink;

  private RouteTail() {}

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    long slowNanos = Long.getLong("slowMicros", 9) * 1_000;
    RouteBenchmark b = new RouteBenchmark();
    b.replicas = 64;
    b.promptTokens = 8_192;
    b.ranking = "default";
    b.setUp();
    boolean preTouched = ManagementFactory.getRuntimeMXBean().getInputArguments()
        .contains("-XX:+AlwaysPreTouch");
    System.out.println("heap pre-touched: " + preTouched);
    double gapsPerSecond = machineGapsPerSecond(slowNanos);
    report("callerObjects", b::callerObjects, n, slowNanos, gapsPerSecond);
    report("routeAndComplete", b::routeAndComplete, n, slowNanos, gapsPerSecond);
  }

  /** The index of the {@code perMille}th per mille of {@code n} sorted values. */
  private static int at(int n, int perMille) {
    return (int) ((long) n * perMille / 1000);
  }

  /** Gaps over {@code slowNanos} per second between two readings of the clock in a tight loop. */
  private static double machineGapsPerSecond(long slowNanos) {
    long span = GAP_SECONDS * 1_000_000_000L;
    long start = System.nanoTime();
    long previous = start;
    long gaps = 0;
    long gapNanos = 0;
    while (previous - start < span) {
      long now = System.nanoTime();
      if (now - previous > slowNanos) {
        gaps++;
        gapNanos += now - previous;
      }
      previous = now;
    }
    double perSecond = gaps / (double) GAP_SECONDS;
    System.out.printf(Locale.ROOT,
        "machine: %.0f gaps over %d us per second in a clock-reading loop, mean %.1f us, %.2f%% of"
            + " the time%n",
        perSecond, slowNanos / 1_000, gaps == 0 ? 0.0 : gapNanos / 1e3 / gaps,
        100.0 * gapNanos / span);
    return perSecond;
  }

  private static void report(String name, Supplier<Object> op, int n, long slowNanos,
      double gapsPerSecond) {
    for (int i = 0; i < WARMUP; i++) {
      sink = op.get();
    }
    long[] took = new long[n];
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      sink = op.get();
      took[i] = System.nanoTime() - start;
    }
    TreeMap<Integer, Integer> spacings = new TreeMap<>();
    int slow = 0;
    int last = -1;
    for (int i = 0; i < n; i++) {
      if (took[i] > slowNanos) {
        slow++;
        if (last >= 0) {
          spacings.merge(i - last, 1, Integer::sum);
        }
        last = i;
      }
    }
    StringBuilder common = new StringBuilder();
    spacings.forEach((gap, count) -> {
      if (count >= COMMON_SPACING) {
        common.append(' ').append(gap).append('x').append(count);
      }
    });
    Arrays.sort(took);
    System.out.printf(Locale.ROOT,
        "%s: p50 %d ns, p90 %d ns, p99 %d ns, p99.9 %d ns; %d of %d over %d us (%.2f%%; the"
            + " machine's gaps alone would make about %.2f%%); common spacings between them"
            + " (operations x times):%s%n",
        name, took[n / 2], took[at(n, 900)], took[at(n, 990)], took[at(n, 999)], slow, n,
        slowNanos / 1_000, 100.0 * slow / n, 100.0 * gapsPerSecond * took[n / 2] / 1e9,
        common.length() == 0 ? " none" : common);
  }
}
