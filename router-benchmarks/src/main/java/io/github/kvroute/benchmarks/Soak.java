package io.github.kvroute.benchmarks;

import io.github.kvroute.testkit.RouterStress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The soak: {@link RouterStress} phases against one router until the time is up, the books checked at
 * quiescence after every phase, plus two checks only a long run can make (wall clock and heap, so
 * never in CI): no single {@code route()} call took longer than {@value #MAX_ROUTE_MILLIS} ms, and the
 * heap retained after a full GC stays within twice the index budget plus {@value #HEAP_SLACK_MB} MiB
 * of the heap before the first phase. Prints one line per phase and a closing summary; exits 1 when
 * anything was violated. Run through {@code scripts/soak.sh MINUTES [options]}.
 *
 * <pre>
 * Soak MINUTES [--threads N] [--policy NAME] [--seed S] [--no-ghosts]
 * </pre>
 */
public final class Soak {
  static final long MAX_ROUTE_MILLIS = 1_000;
  static final long HEAP_SLACK_MB = 64;

  private Soak() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args[0].startsWith("-")) {
      System.err.println("usage: Soak MINUTES [--threads N] [--policy NAME] [--seed S] [--no-ghosts]");
      System.exit(2);
    }
    double minutes = Double.parseDouble(args[0]);
    RouterStress.Config config = RouterStress.Config.soak();
    String policy = "hybrid-cost";
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--threads" -> config = config.withRoutingThreads(Integer.parseInt(args[++i]));
        case "--policy" -> policy = args[++i];
        case "--seed" -> config = config.withSeed(Long.parseLong(args[++i]));
        case "--no-ghosts" -> config = config.withGhostEvents(false);
        default -> {
          System.err.println("unknown option: " + args[i]);
          System.exit(2);
        }
      }
    }
    System.exit(run(config, policy, Duration.ofMillis((long) (minutes * 60_000))) ? 0 : 1);
  }

  /** Runs phases until {@code length} has passed; true when nothing was violated. */
  static boolean run(RouterStress.Config config, String policy, Duration length)
      throws InterruptedException {
    System.out.printf(Locale.ROOT, "soak: %s for %s, %s%n", policy, length, config);
    long heapBefore = usedHeapAfterGc();
    long heapBound = heapBefore + 2 * config.indexBudgetBytes() + (HEAP_SLACK_MB << 20);
    List<String> violations = new ArrayList<>();
    long deadline = System.nanoTime() + length.toNanos();
    long trafficNanos = 0;
    RouterStress.Phase last = null;
    String chosen = policy;
    try (RouterStress stress = new RouterStress(config, b -> b.policy(chosen))) {
      do {
        RouterStress.Phase p = stress.runPhase();
        trafficNanos += p.elapsedNanos();
        long heap = usedHeapAfterGc();
        long offeredThisPhase = p.offered() - (last == null ? 0 : last.offered());
        System.out.printf(Locale.ROOT,
            "phase %3d: %,11d offered %,11d routed %,9d rejected %d failed | %,9.0f routes/s | "
                + "slowest route %6.1f ms | heap %,5d MiB | in flight %d, expired %,d, orphaned %,d, "
                + "index %,d B | %d violations%n",
            p.number(), p.offered(), p.routed(), p.rejected(), p.failed(),
            offeredThisPhase / (p.elapsedNanos() / 1e9), p.maxRouteNanos() / 1e6, heap >> 20,
            p.stats().inFlight(), p.stats().expired(), p.stats().orphaned(), p.stats().indexBytes(),
            p.violations().size());
        p.violations().forEach(v -> violations.add("phase " + p.number() + ": " + v));
        if (p.maxRouteNanos() > MAX_ROUTE_MILLIS * 1_000_000) {
          violations.add(String.format(Locale.ROOT,
              "phase %d: slowest route(): %.0f ms (expected: <= %d ms)",
              p.number(), p.maxRouteNanos() / 1e6, MAX_ROUTE_MILLIS));
        }
        if (heap > heapBound) {
          violations.add(String.format(Locale.ROOT,
              "phase %d: heap after GC: %d MiB (expected: <= %d MiB = before + 2 x index budget + %d)",
              p.number(), heap >> 20, heapBound >> 20, HEAP_SLACK_MB));
        }
        last = p;
      } while (System.nanoTime() < deadline);
    }
    System.out.printf(Locale.ROOT,
        "soak done: %d phases, %,d route calls (%,d routed, %,d rejected, %d failed), %,d outcomes, "
            + "%,d reports, %,d KV events (%,d keys), %,d churn steps; %,.0f routes/s over %.1f s of "
            + "traffic; %d violations%n",
        last.number(), last.offered(), last.routed(), last.rejected(), last.failed(), last.outcomes(),
        last.reports(), last.kvEvents(), last.kvEventKeys(), last.churn(),
        last.offered() / (trafficNanos / 1e9), trafficNanos / 1e9, violations.size());
    System.out.println("final stats: " + last.stats());
    violations.forEach(v -> System.out.println("VIOLATION " + v));
    return violations.isEmpty();
  }

  private static long usedHeapAfterGc() {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return rt.totalMemory() - rt.freeMemory();
  }
}
