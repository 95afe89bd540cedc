package io.github.kvroute.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * Bytes allocated per operation of {@link RouteBenchmark}'s {@code routeAndComplete} and
 * {@code callerObjects}, on the same state, counted exactly by the thread's allocation counter
 * instead of sampled by JMH's GC profiler (whose figure swings by a few hundred bytes between
 * iterations while the router's sets grow in steps). Their difference is the router's own bytes
 * per decision. Rounds of {@code ROUNDS_OF} operations each, one line per round; the closed-attempt
 * set stops growing after about 1.1M decisions (its bound), so later rounds show the steady state.
 * Prints its lines; not a JMH benchmark (it measures bytes, not time). Single-threaded.
 *
 * <pre>java -cp router-benchmarks/target/benchmarks.jar io.github.kvroute.benchmarks.DecisionBytes [ROUNDS]</pre>
 */
public final class DecisionBytes {
  /** Operations per round of each kind. */
  static final int ROUNDS_OF = 100_000;

  private DecisionBytes() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 14;
    RouteBenchmark b = new RouteBenchmark();
    b.replicas = 64;
    b.promptTokens = 8_192;
    b.ranking = "default";
    b.setUp();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    Object last = null;
    for (int round = 1; round <= rounds; round++) {
      long before = threads.getThreadAllocatedBytes(thread);
      for (int i = 0; i < ROUNDS_OF; i++) {
        last = b.routeAndComplete();
      }
      long decisions = threads.getThreadAllocatedBytes(thread) - before;
      before = threads.getThreadAllocatedBytes(thread);
      for (int i = 0; i < ROUNDS_OF; i++) {
        last = b.callerObjects();
      }
      long caller = threads.getThreadAllocatedBytes(thread) - before;
      System.out.printf(Locale.ROOT,
          "decisions=%d routeAndComplete=%.1f B/op callerObjects=%.1f B/op router=%.1f B/op%n",
          (long) round * ROUNDS_OF, (double) decisions / ROUNDS_OF, (double) caller / ROUNDS_OF,
          (double) (decisions - caller) / ROUNDS_OF);
    }
    // keeps the last result reachable, so that no operation is optimised away
    if (last == null) {
      throw new AssertionError("no operation ran");
    }
  }
}
